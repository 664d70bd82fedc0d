"""AvailabilityZoneFilter."""

from nova_lite.scheduler.filters import availability_zone_filter as azf

from .. import fake_hosts


def _hosts():
    return [fake_hosts.host('z1', aggregates=[
                fake_hosts.aggregate('a', availability_zone='zone1')],
                availability_zone='zone1'),
            fake_hosts.host('default', availability_zone='nova'),
            fake_hosts.host('z2', aggregates=[
                fake_hosts.aggregate('b', availability_zone='zone2'),
                fake_hosts.aggregate('c', ssd='true')],
                availability_zone='zone2')]


def _kept(zone):
    spec = fake_hosts.spec(availability_zone=zone)
    return fake_hosts.names(azf.AvailabilityZoneFilter().filter_all(
        _hosts(), spec))


def test_no_zone_requested_passes_all():
    assert _kept(None) == ['z1', 'default', 'z2']


def test_zone_from_aggregates():
    assert _kept('zone1') == ['z1']
    assert _kept('zone2') == ['z2']


def test_default_zone_for_hosts_in_no_zone_aggregate():
    assert _kept('nova') == ['default']


def test_aggregate_zone_wins_over_host_attribute():
    host = fake_hosts.host(aggregates=[
        fake_hosts.aggregate('a', availability_zone='zone1')],
        availability_zone='stale')
    assert azf.host_zones(host) == {'zone1'}


def test_reason():
    flt = azf.AvailabilityZoneFilter()
    spec = fake_hosts.spec(availability_zone='zone1')
    assert flt.rejection_reason(_hosts()[1], spec) == 'not in zone zone1'
    assert flt.summarize_rejections(_hosts()[1:], spec) == (
        '2 not in zone zone1')
