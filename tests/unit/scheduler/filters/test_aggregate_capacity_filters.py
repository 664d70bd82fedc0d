"""AggregateRamFilter, AggregateCoreFilter and AggregateDiskFilter: the
ratio from aggregate metadata (minimum wins), else the host's."""

import pytest

from nova_lite.scheduler.filters import aggregate_core_filter
from nova_lite.scheduler.filters import aggregate_disk_filter
from nova_lite.scheduler.filters import aggregate_ram_filter

from .. import fake_hosts


def _aggs(key, *values):
    return [fake_hosts.aggregate('a%d' % i, **{key: v})
            for i, v in enumerate(values)]


@pytest.mark.parametrize('values,expected', [
    ((), True),                 # host ratio 2.0: 4096 usable of 2048
    (('1.0',), False),          # 2048 - 1536 used = 512 < 1024
    (('3.0', '1.0'), False),    # minimum wins
    (('1.5',), True),           # 3072 - 1536 = 1536
    (('lots',), True),          # not a number: host ratio
])
def test_ram(values, expected):
    host = fake_hosts.host(memory_mb=2048, ram_ratio=2.0,
                           used={'MEMORY_MB': 1536},
                           aggregates=_aggs('ram_allocation_ratio', *values))
    flt = aggregate_ram_filter.AggregateRamFilter()
    assert flt.host_passes(host, fake_hosts.spec(memory_mb=1024)) is expected


@pytest.mark.parametrize('values,expected', [
    ((), True), (('1.0',), False), (('4.0', '2.0'), True),
    (('1.5', '4.0'), False)])
def test_core(values, expected):
    # 4 CPUs, 6 used: needs ratio 2.0 for 2 more.
    host = fake_hosts.host(vcpus=4, cpu_ratio=4.0, used={'VCPU': 6},
                           aggregates=_aggs('cpu_allocation_ratio', *values))
    flt = aggregate_core_filter.AggregateCoreFilter()
    assert flt.host_passes(host, fake_hosts.spec(vcpus=2)) is expected


@pytest.mark.parametrize('values,expected', [
    ((), True), (('1.0',), False), (('2.0', '1.0'), False)])
def test_disk(values, expected):
    host = fake_hosts.host(disk_gb=10, disk_ratio=2.0, used={'DISK_GB': 8},
                           aggregates=_aggs('disk_allocation_ratio',
                                            *values))
    flt = aggregate_disk_filter.AggregateDiskFilter()
    assert flt.host_passes(host, fake_hosts.spec(root_gb=5)) is expected


def test_summary_uses_the_aggregate_ratio():
    host = fake_hosts.host(memory_mb=2048, ram_ratio=2.0,
                           used={'MEMORY_MB': 1536},
                           aggregates=_aggs('ram_allocation_ratio', '1.0'))
    flt = aggregate_ram_filter.AggregateRamFilter()
    assert flt.summarize_rejections([host], fake_hosts.spec(
        memory_mb=1024)) == '1 need 1024 MB, best has 512 MB'
