"""RAMWeigher, CPUWeigher and DiskWeigher: what they weigh, multipliers."""

import pytest

from nova_lite.scheduler import weighers
from nova_lite.scheduler.weighers import cpu
from nova_lite.scheduler.weighers import disk
from nova_lite.scheduler.weighers import ram

from .. import fakes


def _order(weigher, hosts):
    weighed = weighers.HostWeightHandler().get_weighed_objects(
        [weigher], hosts, fakes.spec())
    return [w.obj.host for w in weighed]


def _ram_hosts():
    return [fakes.host('small', memory_mb=4096),
            fakes.host('big', memory_mb=65536),
            fakes.host('mid', memory_mb=65536,
                       used={'MEMORY_MB': 40000})]


def test_ram_weigher_spreads_by_default():
    assert _order(ram.RAMWeigher(), _ram_hosts()) == ['big', 'mid', 'small']


def test_ram_weigher_stacks_with_negative_multiplier(conf):
    conf.config(group='filter_scheduler', ram_weight_multiplier=-1.0)
    assert _order(ram.RAMWeigher(), _ram_hosts()) == ['small', 'mid', 'big']


def test_ram_weigher_counts_overcommit_as_zero():
    host = fakes.host(memory_mb=1000, ram_ratio=2.0,
                      used={'MEMORY_MB': 1500})
    raw = ram.RAMWeigher().weigh_objects([weighers.WeighedHost(host, 0)],
                                         None)
    assert raw == [0]


def test_cpu_weigher_weighs_free_vcpus_with_ratio():
    hosts = [fakes.host('a', vcpus=8, cpu_ratio=4.0, used={'VCPU': 20}),
             fakes.host('b', vcpus=16, used={'VCPU': 4}),
             fakes.host('c', vcpus=8, reserved={'VCPU': 2})]
    weigher = cpu.CPUWeigher()
    raw = weigher.weigh_objects([weighers.WeighedHost(h, 0) for h in hosts],
                                None)
    assert raw == [12.0, 12.0, 6.0]
    assert _order(weigher, hosts) == ['a', 'b', 'c']


def test_cpu_multiplier(conf):
    conf.config(group='filter_scheduler', cpu_weight_multiplier=-2.0)
    host = fakes.host()
    assert cpu.CPUWeigher().weight_multiplier(host) == -2.0


def test_disk_weigher_weighs_free_disk():
    hosts = [fakes.host('a', disk_gb=100, used={'DISK_GB': 90}),
             fakes.host('b', disk_gb=50)]
    weigher = disk.DiskWeigher()
    raw = weigher.weigh_objects([weighers.WeighedHost(h, 0) for h in hosts],
                                None)
    assert raw == [10 * 1024, 50 * 1024]
    assert _order(weigher, hosts) == ['b', 'a']


@pytest.mark.parametrize('weigher,option', [
    (ram.RAMWeigher, 'ram_weight_multiplier'),
    (cpu.CPUWeigher, 'cpu_weight_multiplier'),
    (disk.DiskWeigher, 'disk_weight_multiplier'),
])
def test_each_multiplier_reads_its_option(conf, weigher, option):
    conf.config(group='filter_scheduler', **{option: 3.5})
    assert weigher().weight_multiplier(fakes.host()) == 3.5
