"""AggregateImagePropertiesIsolation: the seed's myWinAgg example and
namespaces."""

from nova_lite.scheduler.filters import aggregate_image_properties_isolation

from .. import fake_hosts


def _filter():
    return aggregate_image_properties_isolation.\
        AggregateImagePropertiesIsolation()


def _win_host():
    return fake_hosts.host('sf-devel', aggregates=[fake_hosts.aggregate(
        'myWinAgg', availability_zone='zone1', os_distro='windows')])


def test_matching_image_runs_on_aggregate_host():
    spec = fake_hosts.spec(image={'os_distro': 'windows'})
    assert _filter().host_passes(_win_host(), spec)


def test_other_image_is_kept_off():
    flt = _filter()
    spec = fake_hosts.spec(image={'os_distro': 'ubuntu'})
    assert not flt.host_passes(_win_host(), spec)
    assert (flt.rejection_reason(_win_host(), spec)
            == 'image os_distro=ubuntu not in aggregate')


def test_image_without_the_property_passes():
    # The isolation is one-way (bug 1677217).
    assert _filter().host_passes(_win_host(), fake_hosts.spec(image={}))
    assert _filter().host_passes(_win_host(), fake_hosts.spec())


def test_host_in_no_aggregate_runs_any_image():
    spec = fake_hosts.spec(image={'os_distro': 'ubuntu'})
    assert _filter().host_passes(fake_hosts.host(), spec)


def test_comma_separated_values_are_alternatives():
    host = fake_hosts.host(aggregates=[fake_hosts.aggregate(
        'a', hw_architecture='x86_64,aarch64')])
    assert _filter().host_passes(host, fake_hosts.spec(
        image={'hw_architecture': 'aarch64'}))


def test_namespace_limits_the_keys(conf):
    conf.config(group='filter_scheduler',
                aggregate_image_properties_isolation_namespace='os',
                aggregate_image_properties_isolation_separator='_')
    host = fake_hosts.host(aggregates=[fake_hosts.aggregate(
        'a', os_distro='windows', hw_architecture='aarch64')])
    # hw_architecture is outside the namespace: not checked.
    spec = fake_hosts.spec(image={'os_distro': 'windows',
                                  'hw_architecture': 'x86_64'})
    assert _filter().host_passes(host, spec)
    spec = fake_hosts.spec(image={'os_distro': 'ubuntu'})
    assert not _filter().host_passes(host, spec)
