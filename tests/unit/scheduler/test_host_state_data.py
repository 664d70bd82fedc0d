"""HostState: what the host manager adds for the filters (aggregates and
zone, instances and the counts and device usage that follow from them,
metrics, failed_builds)."""

import json

from nova_lite import objects
from nova_lite.scheduler import host_state

from . import fake_hosts
from . import fakes

U1 = '00000000-0000-0000-0000-000000000001'
CELLS = [{'id': 0, 'cpus': [0, 1], 'memory_mb': 2048, 'pinned_cpus': [],
          'cpu_usage': 0, 'memory_usage': 0}]
POOLS = [{'vendor_id': '8086', 'product_id': '1520', 'count': 2,
          'numa_node': 0, 'dev_type': 'type-VF'}]


def _state(**node_fields):
    node = fakes.compute_node(U1, 'h1', nodename='n1', **node_fields)
    return host_state.HostState.from_records(
        node, fakes.service('h1'), fakes.summary(U1, 'n1'))


def _instance(uuid, vm_state='active', task_state=None, flavor=None,
              groups=()):
    return host_state.HostInstance(uuid, 'p', vm_state, task_state, flavor,
                                   {}, frozenset(groups))


def test_zone_comes_from_the_aggregates(conf):
    state = _state()
    state.set_aggregates([])
    assert state.availability_zone == 'nova'
    conf.config(default_availability_zone='zone0')
    plain = fake_hosts.aggregate('plain', k='v')
    state.set_aggregates([plain])
    assert state.availability_zone == 'zone0'
    state.set_aggregates([plain, fake_hosts.aggregate('z', availability_zone=
                                                      'az2'),
                          fake_hosts.aggregate('y', availability_zone='az1')])
    # Misconfigured into two zones: both shown, as Nova does.
    assert state.availability_zone == 'az1,az2'
    assert [a.name for a in state.aggregates] == ['plain', 'z', 'y']


def test_instances_give_the_counts():
    state = _state(stats={'num_instances': '9', 'io_workload': '9'})
    assert state.num_instances == 9
    state.set_instances([
        _instance('a'), _instance('b', vm_state='building'),
        _instance('c', task_state='image_snapshot'),
        _instance('d', task_state='deleting')])
    assert set(state.instances) == {'a', 'b', 'c', 'd'}
    assert (state.num_instances, state.num_io_ops) == (4, 2)
    # Once the instances are known, a new node record does not bring the
    # compute's (older) counts back.
    state.update(compute_node=fakes.compute_node(
        U1, 'h1', nodename='n1', stats={'num_instances': '1'}))
    assert (state.num_instances, state.num_io_ops) == (4, 2)


def test_consume_with_an_instance_records_it():
    state = _state()
    state.set_instances([])
    claimed = _instance('new', vm_state='building', groups=['g1'])
    state.consume({'VCPU': 1}, 9, claimed)
    assert state.instances == {'new': claimed}
    assert (state.num_instances, state.num_io_ops) == (1, 1)
    assert state.generation == 9 and state.usages['VCPU'] == 1


def test_consume_without_instance_still_counts():
    state = _state()
    state.consume({'VCPU': 1}, 2)
    assert (state.num_instances, state.num_io_ops) == (1, 1)
    assert state.instances == {}


def test_metrics_and_failed_builds_from_the_node():
    state = _state(metrics={'cpu.percent': '12', 'bad': 'x'},
                   stats={'failed_builds': '3'})
    assert state.metrics == {'cpu.percent': 12.0}
    assert state.failed_builds == 3
    assert _state().failed_builds == 0 and _state().metrics == {}


def test_devices_start_as_reported_and_follow_instances(conf):
    conf.config(group='pci', alias=[json.dumps(
        {'name': 'vf', 'vendor_id': '8086', 'product_id': '1520',
         'device_type': 'type-VF'})])
    state = _state(numa_topology=CELLS, pci_device_pools=POOLS)
    assert state.numa_topology == CELLS and state.pci_stats == POOLS
    flavor = objects.Flavor(flavorid='f', name='f', vcpus=1, memory_mb=512,
                            root_gb=1, extra_specs={
                                'hw:cpu_policy': 'dedicated',
                                'pci_passthrough:alias': 'vf:1'})
    state.set_instances([])
    state.consume({'VCPU': 1}, 2, _instance('x', flavor=flavor))
    assert state.numa_topology[0]['pinned_cpus'] == [0]
    assert state.numa_topology[0]['memory_usage'] == 512
    assert state.pci_stats[0]['count'] == 1
    # What the compute reported is kept apart and unchanged.
    assert CELLS[0]['pinned_cpus'] == [] and POOLS[0]['count'] == 2
    state.set_instances([])
    assert state.pci_stats[0]['count'] == 2


def test_provider_aggregates_are_placements():
    state = _state()
    assert state.provider_aggregates == set()
    summary = fakes.summary(U1, 'n1', aggregates={'pa'})
    state.update(summary=summary)
    assert state.provider_aggregates == {'pa'}
    assert state.aggregates == []


def test_aggregate_view_is_updated_in_place():
    agg = objects.Aggregate(uuid=U1, name='a', hosts=['h1'],
                            metadata={'availability_zone': 'az1'})
    view = host_state.AggregateView(agg)
    assert (view.name, view.hosts, view.availability_zone) == (
        'a', ['h1'], 'az1')
    agg.metadata = {}
    agg.name = 'b'
    view.update(agg)
    assert (view.name, view.availability_zone) == ('b', None)


def test_claim_on_a_host_known_by_its_stats_counts_up():
    state = _state(stats={'num_instances': '4', 'io_workload': '1'})
    state.consume({'VCPU': 1}, 2, _instance('new', vm_state='building'))
    assert (state.num_instances, state.num_io_ops) == (5, 2)
