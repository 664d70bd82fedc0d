"""A NoValidHost names each filter's hosts before and after, and why."""

import pytest

from nova_lite import exception
from nova_lite.scheduler import filter_scheduler
from nova_lite.scheduler import filters

from .. import fake_hosts
from .. import fakes


def _explain(enabled, hosts, spec):
    loaded = filters.HostFilterHandler().load_enabled_filters(
        enabled=enabled)
    scheduler = filter_scheduler.FilterScheduler(loaded, [])
    with pytest.raises(exception.NoValidHost) as info:
        scheduler.select_destinations(
            spec, hosts, ['00000000-0000-4000-8000-000000000001'],
            fakes.FakeClaimer())
    return info.value.format_message()


def test_default_filters_explain_themselves():
    hosts = ([fake_hosts.host('down%d' % i, up=False) for i in range(2)]
             + [fake_hosts.host('x86-%d' % i, cpu_info='{"arch": "x86_64"}')
                for i in range(3)])
    spec = fake_hosts.spec(image={'hw_architecture': 'aarch64'})
    message = _explain(['ComputeFilter', 'ComputeCapabilitiesFilter',
                        'ImagePropertiesFilter'], hosts, spec)
    assert ('ComputeFilter: 5 -> 3 (2 down); '
            'ComputeCapabilitiesFilter: 3 -> 3; '
            'ImagePropertiesFilter: 3 -> 0 (3 cannot run aarch64/*/*)'
            in message)


def test_group_and_aggregate_filters_explain_themselves():
    members = ['33333333-0000-4000-8000-00000000000%d' % i for i in range(3)]
    hosts = [fake_hosts.host('h%d' % i, instances=[members[i]])
             for i in range(3)]
    hosts.append(fake_hosts.host('isolated', aggregates=[
        fake_hosts.aggregate('x', filter_tenant_id='other')]))
    spec = fake_hosts.spec(instance_group=fake_hosts.Group(
        'anti-affinity', members=members, name='web'))
    message = _explain(['AggregateMultiTenancyIsolation',
                        'ServerGroupAntiAffinityFilter'], hosts, spec)
    assert ('AggregateMultiTenancyIsolation: 4 -> 3 (1 isolated to other '
            'projects); ServerGroupAntiAffinityFilter: 3 -> 0 (3 run 1 of '
            'group web)' in message)
