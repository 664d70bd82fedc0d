"""The weighers of seed 000 beyond RAM, CPU and disk: what each weighs,
its multiplier option and the per-aggregate override."""

import pytest

from nova_lite import exception
from nova_lite.scheduler import weighers
from nova_lite.scheduler.weighers import affinity
from nova_lite.scheduler.weighers import anti_affinity
from nova_lite.scheduler.weighers import build_failure
from nova_lite.scheduler.weighers import cpu
from nova_lite.scheduler.weighers import cross_cell
from nova_lite.scheduler.weighers import disk
from nova_lite.scheduler.weighers import hypervisor_version
from nova_lite.scheduler.weighers import image_props
from nova_lite.scheduler.weighers import io_ops
from nova_lite.scheduler.weighers import metrics
from nova_lite.scheduler.weighers import num_instances
from nova_lite.scheduler.weighers import pci
from nova_lite.scheduler.weighers import ram

from .. import fake_hosts


def _raw(weigher, hosts, spec=None):
    return weigher.weigh_objects([weighers.WeighedHost(h, 0.0)
                                  for h in hosts], spec or fake_hosts.spec())


def _order(weigher, hosts, spec=None):
    weighed = weighers.HostWeightHandler().get_weighed_objects(
        [weigher], hosts, spec or fake_hosts.spec())
    return [w.obj.host for w in weighed]


# IoOps

def test_io_ops_prefers_idle_hosts_by_default():
    hosts = [fake_hosts.host('busy', num_io_ops=5),
             fake_hosts.host('idle', num_io_ops=0),
             fake_hosts.host('some', num_io_ops=2)]
    assert _raw(io_ops.IoOpsWeigher(), hosts) == [5, 0, 2]
    assert _order(io_ops.IoOpsWeigher(), hosts) == ['idle', 'some', 'busy']


def test_io_ops_normalises_against_zero_as_nova():
    # Issue 11, case 2: Nova's IoOpsWeigher has minval 0, so io_ops 2 and
    # 4 weigh -0.5 and -1 (not 0 and -1) with the default multiplier.
    hosts = [fake_hosts.host('two', num_io_ops=2),
             fake_hosts.host('four', num_io_ops=4)]
    weighed = weighers.HostWeightHandler().get_weighed_objects(
        [io_ops.IoOpsWeigher()], hosts, fake_hosts.spec())
    assert [(w.obj.host, w.weight) for w in weighed] == [
        ('two', -0.5), ('four', -1.0)]


def test_io_ops_with_ram_order_as_nova():
    # With the RAM weigher Nova orders these P, Q, R (I/O 4, 2, 3 weigh
    # -1, -0.5, -0.75); normalised against the least busy host instead,
    # Q would come first (I/O 0 for it).
    hosts = [fake_hosts.host('P', memory_mb=2000, num_io_ops=4),
             fake_hosts.host('Q', memory_mb=800, num_io_ops=2),
             fake_hosts.host('R', memory_mb=1000, num_io_ops=3)]
    weighed = weighers.HostWeightHandler().get_weighed_objects(
        [ram.RAMWeigher(), io_ops.IoOpsWeigher()], hosts, fake_hosts.spec())
    assert [w.obj.host for w in weighed] == ['P', 'Q', 'R']
    assert [w.weight for w in weighed] == pytest.approx([0.0, -0.1, -0.25])


def test_io_ops_positive_multiplier_prefers_busy(conf):
    conf.config(group='filter_scheduler', io_ops_weight_multiplier=2.0)
    hosts = [fake_hosts.host('idle'), fake_hosts.host('busy', num_io_ops=3)]
    assert _order(io_ops.IoOpsWeigher(), hosts) == ['busy', 'idle']


# Metrics

def _metric_hosts():
    return [fake_hosts.host('a', metrics={'cpu.percent': 80.0,
                                          'mem.free': 1000.0}),
            fake_hosts.host('b', metrics={'cpu.percent': 10.0,
                                          'mem.free': 500.0}),
            fake_hosts.host('c', metrics={'cpu.percent': 10.0})]


def test_metrics_weighted_sum(conf):
    conf.config(group='metrics', required=False,
                weight_setting=['cpu.percent=-1.0', 'mem.free=0.1'])
    raw = _raw(metrics.MetricsWeigher(), _metric_hosts())
    assert raw == [20.0, 40.0, -10000.0]
    assert _order(metrics.MetricsWeigher(), _metric_hosts()) == [
        'b', 'a', 'c']


def test_metrics_weight_of_unavailable(conf):
    conf.config(group='metrics', required=False, weight_of_unavailable=-5.0,
                weight_setting=['mem.free=1'])
    assert _raw(metrics.MetricsWeigher(), _metric_hosts())[2] == -5.0


def test_metrics_missing_metric_with_zero_ratio_is_ignored(conf):
    conf.config(group='metrics', required=False,
                weight_setting=['cpu.percent=1', 'mem.free=0'])
    assert _raw(metrics.MetricsWeigher(), _metric_hosts()) == [
        80.0, 10.0, 10.0]


def test_metrics_required_missing_metric_raises(conf):
    conf.config(group='metrics', weight_setting=['mem.free=1'])
    with pytest.raises(exception.ComputeHostMetricNotFound) as info:
        _raw(metrics.MetricsWeigher(), _metric_hosts())
    assert 'mem.free' in info.value.format_message()


def test_metrics_without_setting_weighs_nothing():
    assert _raw(metrics.MetricsWeigher(), _metric_hosts()) == [0.0] * 3


def test_metrics_multiplier_option_and_aggregate(conf):
    conf.config(group='metrics', weight_multiplier=3.0)
    weigher = metrics.MetricsWeigher()
    assert weigher.weight_multiplier(fake_hosts.host()) == 3.0
    host = fake_hosts.host(aggregates=[fake_hosts.aggregate(
        'a', metrics_weight_multiplier='-1')])
    assert weigher.weight_multiplier(host) == -1.0


# PCI

def _pci_hosts():
    pool = {'vendor_id': '8086', 'product_id': '0443', 'dev_type':
            'type-PCI', 'numa_node': 0}
    return [fake_hosts.host('one', pci_stats=[dict(pool, count=1)]),
            fake_hosts.host('many', pci_stats=[dict(pool, count=4),
                                               dict(pool, count=3)]),
            fake_hosts.host('none'),
            fake_hosts.host('huge', pci_stats=[dict(pool, count=500)])]


def test_pci_keeps_pci_hosts_free():
    assert _raw(pci.PCIWeigher(), _pci_hosts()) == [99, 93, 100, 1]
    assert _order(pci.PCIWeigher(), _pci_hosts()) == [
        'none', 'one', 'many', 'huge']


def test_pci_requests_stack_on_the_fewest_devices():
    # The filters left only hosts with devices: the one with fewest wins.
    assert _order(pci.PCIWeigher(), _pci_hosts()[:2]) == ['one', 'many']


def test_pci_multiplier_positive_only(conf):
    with pytest.raises(ValueError):
        conf.config(group='filter_scheduler', pci_weight_multiplier=-1.0)
    host = fake_hosts.host(aggregates=[fake_hosts.aggregate(
        'a', pci_weight_multiplier='-2')])
    assert pci.PCIWeigher().weight_multiplier(host) == 0.0
    host = fake_hosts.host(aggregates=[fake_hosts.aggregate(
        'a', pci_weight_multiplier='2')])
    assert pci.PCIWeigher().weight_multiplier(host) == 2.0


# Server group soft (anti-)affinity

M = ['22222222-0000-4000-8000-00000000000%d' % i for i in range(5)]


def _group_hosts():
    return [fake_hosts.host('two', instances=[M[0], M[1], 'other']),
            fake_hosts.host('one', instances=[M[2]]),
            fake_hosts.host('zero', instances=['other2'])]


@pytest.mark.parametrize('policy,soft,anti', [
    ('soft-affinity', [2, 1, 0], [0, 0, 0]),
    ('soft-anti-affinity', [0, 0, 0], [-2, -1, 0]),
    ('affinity', [0, 0, 0], [0, 0, 0]),
])
def test_soft_affinity_counts_members(policy, soft, anti):
    spec = fake_hosts.spec(instance_group=fake_hosts.Group(
        policy, members=M[:4]))
    hosts = _group_hosts()
    assert _raw(affinity.ServerGroupSoftAffinityWeigher(), hosts,
                spec) == soft
    assert _raw(anti_affinity.ServerGroupSoftAntiAffinityWeigher(), hosts,
                spec) == anti


def test_soft_affinity_orders():
    soft = fake_hosts.spec(instance_group=fake_hosts.Group(
        'soft-affinity', members=M[:4]))
    assert _order(affinity.ServerGroupSoftAffinityWeigher(), _group_hosts(),
                  soft) == ['two', 'one', 'zero']
    spread = fake_hosts.spec(instance_group=fake_hosts.Group(
        'soft-anti-affinity', members=M[:4]))
    assert _order(anti_affinity.ServerGroupSoftAntiAffinityWeigher(),
                  _group_hosts(), spread) == ['zero', 'one', 'two']


def test_no_group_weighs_nothing():
    assert _raw(affinity.ServerGroupSoftAffinityWeigher(),
                _group_hosts()) == [0, 0, 0]


@pytest.mark.parametrize('weigher,option', [
    (affinity.ServerGroupSoftAffinityWeigher,
     'soft_affinity_weight_multiplier'),
    (anti_affinity.ServerGroupSoftAntiAffinityWeigher,
     'soft_anti_affinity_weight_multiplier'),
])
def test_soft_affinity_multipliers_positive_only(conf, weigher, option):
    with pytest.raises(ValueError):
        conf.config(group='filter_scheduler', **{option: -1.0})
    conf.config(group='filter_scheduler', **{option: 2.5})
    assert weigher().weight_multiplier(fake_hosts.host()) == 2.5
    negative = fake_hosts.host(aggregates=[fake_hosts.aggregate(
        'a', **{option: '-3'})])
    assert weigher().weight_multiplier(negative) == 0.0


# Build failures

def test_build_failures_weigh_hosts_down():
    hosts = [fake_hosts.host('bad', failed_builds=3),
             fake_hosts.host('good'),
             fake_hosts.host('meh', failed_builds=1)]
    weigher = build_failure.BuildFailureWeigher()
    # Nova's convention: the raw number is the failure count and the
    # multiplier carries the minus sign.
    assert _raw(weigher, hosts) == [3, 0, 1]
    assert weigher.weight_multiplier(hosts[0]) == -1000000.0
    assert _order(weigher, hosts) == ['good', 'meh', 'bad']


def test_build_failure_per_aggregate_multiplier_as_nova():
    # Issue 11, case 1: RAM + BuildFailure; Nova picks B. With the sign on
    # the raw number, A's and B's normalised 1.0 would be multiplied by
    # 1e6 and 100, and A would win.
    hosts = [fake_hosts.host('A', memory_mb=1000),
             fake_hosts.host('B', memory_mb=2000, aggregates=[
                 fake_hosts.aggregate(
                     'agg', build_failure_weight_multiplier='100')]),
             fake_hosts.host('C', memory_mb=1500, failed_builds=2)]
    weighed = weighers.HostWeightHandler().get_weighed_objects(
        [ram.RAMWeigher(), build_failure.BuildFailureWeigher()], hosts,
        fake_hosts.spec())
    assert [w.obj.host for w in weighed] == ['B', 'A', 'C']
    assert [w.weight for w in weighed] == [1.0, 0.5, 0.75 - 1000000.0]


def test_build_failure_outweighs_resources_by_default():
    hosts = [fake_hosts.host('big-but-failing', memory_mb=65536,
                             failed_builds=1),
             fake_hosts.host('small', memory_mb=2048)]
    handler = weighers.HostWeightHandler()
    weighed = handler.get_weighed_objects(
        [ram.RAMWeigher(), build_failure.BuildFailureWeigher()], hosts,
        fake_hosts.spec())
    assert weighed[0].obj.host == 'small'


# Cross cell

def test_cross_cell_is_a_no_op_with_one_cell():
    hosts = [fake_hosts.host('a'), fake_hosts.host('b')]
    assert _raw(cross_cell.CrossCellWeigher(), hosts) == [0.0, 0.0]
    assert cross_cell.CrossCellWeigher()._weigh_object(hosts[0], None) == 0.0
    assert cross_cell.CrossCellWeigher().weight_multiplier(hosts[0]) == 1e6


# Hypervisor version and instance count

def test_hypervisor_version_prefers_newest_by_default(conf):
    hosts = [fake_hosts.host('old', hypervisor_version=6000),
             fake_hosts.host('new', hypervisor_version=8001),
             fake_hosts.host('unknown', hypervisor_version=None)]
    weigher = hypervisor_version.HypervisorVersionWeigher()
    assert _raw(weigher, hosts) == [6000, 8001, 0]
    assert _order(weigher, hosts) == ['new', 'old', 'unknown']
    conf.config(group='filter_scheduler',
                hypervisor_version_weight_multiplier=-1.0)
    assert _order(weigher, hosts)[0] == 'unknown'


def test_num_instances_is_off_by_default_then_packs_or_spreads(conf):
    hosts = [fake_hosts.host('few', num_instances=1),
             fake_hosts.host('many', num_instances=9)]
    weigher = num_instances.NumInstancesWeigher()
    assert weigher.weight_multiplier(hosts[0]) == 0.0
    assert _order(weigher, hosts) == ['few', 'many']   # ties keep order
    conf.config(group='filter_scheduler', num_instances_weight_multiplier=1.0)
    assert _order(weigher, hosts) == ['many', 'few']
    conf.config(group='filter_scheduler',
                num_instances_weight_multiplier=-1.0)
    assert _order(weigher, hosts) == ['few', 'many']


# Image properties

def _image_hosts():
    windows = {'os_distro': 'windows', 'os_secure_boot': 'required',
               'hw_machine_type': 'q35'}
    linux = {'os_distro': 'ubuntu', 'os_secure_boot': 'required'}
    return [
        fake_hosts.host('win2', instances=[
            fake_hosts.HostInstance(image_properties=windows),
            fake_hosts.HostInstance(image_properties=windows)]),
        fake_hosts.host('linux', instances=[
            fake_hosts.HostInstance(image_properties=linux)]),
        fake_hosts.host('empty')]


def _windows_spec():
    return fake_hosts.spec(image={'os_distro': 'windows',
                                  'os_secure_boot': 'required',
                                  'hw_machine_type': 'q35'})


def test_image_props_off_by_default():
    assert _raw(image_props.ImagePropertiesWeigher(), _image_hosts(),
                _windows_spec()) == [0.0, 0.0, 0.0]


def test_image_props_counts_shared_properties(conf):
    conf.config(group='filter_scheduler', image_props_weight_multiplier=1.0)
    weigher = image_props.ImagePropertiesWeigher()
    assert _raw(weigher, _image_hosts(), _windows_spec()) == [6.0, 1.0, 0.0]
    assert _order(weigher, _image_hosts(), _windows_spec()) == [
        'win2', 'linux', 'empty']
    conf.config(group='filter_scheduler', image_props_weight_multiplier=-1.0)
    assert _order(weigher, _image_hosts(), _windows_spec())[0] == 'empty'


def test_image_props_weight_setting(conf):
    # The seed's example: os_distro counts 10, os_secure_boot 1,
    # os_require_quiesce 0, and unlisted properties not at all.
    conf.config(group='filter_scheduler', image_props_weight_multiplier=1.0,
                image_props_weight_setting=['os_distro=10',
                                            'os_secure_boot=1',
                                            'os_require_quiesce=0'])
    assert _raw(image_props.ImagePropertiesWeigher(), _image_hosts(),
                _windows_spec()) == [22.0, 1.0, 0.0]


def test_image_props_aggregate_can_turn_it_on():
    host = _image_hosts()[0]
    host.aggregates = [fake_hosts.aggregate(
        'a', image_props_weight_multiplier='1')]
    weigher = image_props.ImagePropertiesWeigher()
    assert _raw(weigher, [host, fake_hosts.host('e')],
                _windows_spec()) == [6.0, 0.0]


def test_image_props_without_image_weighs_nothing(conf):
    conf.config(group='filter_scheduler', image_props_weight_multiplier=1.0)
    assert _raw(image_props.ImagePropertiesWeigher(), _image_hosts(),
                fake_hosts.spec()) == [0.0, 0.0, 0.0]


# Every weigher: its option, and the per-aggregate override

@pytest.mark.parametrize('weigher,group,option,aggregate_key', [
    (ram.RAMWeigher, 'filter_scheduler', 'ram_weight_multiplier', None),
    (cpu.CPUWeigher, 'filter_scheduler', 'cpu_weight_multiplier', None),
    (disk.DiskWeigher, 'filter_scheduler', 'disk_weight_multiplier', None),
    (io_ops.IoOpsWeigher, 'filter_scheduler', 'io_ops_weight_multiplier',
     None),
    (metrics.MetricsWeigher, 'metrics', 'weight_multiplier',
     'metrics_weight_multiplier'),
    (pci.PCIWeigher, 'filter_scheduler', 'pci_weight_multiplier', None),
    (affinity.ServerGroupSoftAffinityWeigher, 'filter_scheduler',
     'soft_affinity_weight_multiplier', None),
    (anti_affinity.ServerGroupSoftAntiAffinityWeigher, 'filter_scheduler',
     'soft_anti_affinity_weight_multiplier', None),
    (build_failure.BuildFailureWeigher, 'filter_scheduler',
     'build_failure_weight_multiplier', None),
    (cross_cell.CrossCellWeigher, 'filter_scheduler',
     'cross_cell_move_weight_multiplier', None),
    (hypervisor_version.HypervisorVersionWeigher, 'filter_scheduler',
     'hypervisor_version_weight_multiplier', None),
    (num_instances.NumInstancesWeigher, 'filter_scheduler',
     'num_instances_weight_multiplier', None),
    (image_props.ImagePropertiesWeigher, 'filter_scheduler',
     'image_props_weight_multiplier', None),
])
def test_multiplier_option_and_aggregate_minimum(conf, weigher, group,
                                                 option, aggregate_key):
    # BuildFailureWeigher negates the multiplier it reads, as Nova does.
    sign = -1 if weigher is build_failure.BuildFailureWeigher else 1
    conf.config(group=group, **{option: 7.0})
    assert weigher().weight_multiplier(fake_hosts.host()) == sign * 7.0
    key = aggregate_key or option
    host = fake_hosts.host(aggregates=[
        fake_hosts.aggregate('a', **{key: '5'}),
        fake_hosts.aggregate('b', **{key: '3.5'})])
    assert weigher().weight_multiplier(host) == sign * 3.5
    bad = fake_hosts.host(aggregates=[fake_hosts.aggregate(
        'a', **{key: 'heavy'})])
    assert weigher().weight_multiplier(bad) == sign * 7.0
