"""Aggregate metadata, weight multipliers and request field helpers."""

from nova_lite import objects
from nova_lite.scheduler import utils

from . import fake_hosts


def _host(*aggregates):
    return fake_hosts.host(aggregates=aggregates)


def test_aggregate_values_from_key():
    host = _host(fake_hosts.aggregate('a', k='1'),
                 fake_hosts.aggregate('b', k='2', other='x'),
                 fake_hosts.aggregate('c', other='y'))
    assert utils.aggregate_values_from_key(host, 'k') == {'1', '2'}
    assert utils.aggregate_values_from_key(host, 'missing') == set()


def test_aggregate_metadata_splits_commas_and_pools_aggregates():
    host = _host(fake_hosts.aggregate('a', k='x, y'),
                 fake_hosts.aggregate('b', k='z', other='1'))
    metadata = utils.aggregate_metadata_get_by_host(host)
    assert metadata == {'k': {'x', 'y', 'z'}, 'other': {'1'}}


def test_aggregate_metadata_by_key_keeps_whole_aggregates_having_it():
    host = _host(fake_hosts.aggregate('a', k='1', extra='e'),
                 fake_hosts.aggregate('b', other='2'))
    metadata = utils.aggregate_metadata_get_by_host(host, key='k')
    assert metadata == {'k': {'1'}, 'extra': {'e'}}


def test_placement_aggregate_uuids_are_not_host_aggregates():
    # Until the host manager gives Aggregate objects, host_state.aggregates
    # may hold placement aggregate uuids: they carry no metadata.
    host = fake_hosts.host()
    host.aggregates = {'2b6f5f1e-0000-4000-8000-000000000001'}
    assert utils.host_aggregates(host) == []
    assert utils.aggregate_min(host, 'k', 7) == 7


def test_minimum_wins():
    host = _host(fake_hosts.aggregate('a', k='5'),
                 fake_hosts.aggregate('b', k='3'))
    assert utils.aggregate_min(host, 'k', 10) == 3
    assert utils.aggregate_min(_host(), 'k', 10) == 10


def test_bad_value_falls_back_to_default():
    host = _host(fake_hosts.aggregate('a', k='many'),
                 fake_hosts.aggregate('b', k='3'))
    assert utils.aggregate_min(host, 'k', 10) == 10


def test_weight_multiplier_per_aggregate_else_option():
    host = _host(fake_hosts.aggregate('a', ram_weight_multiplier='-1.5'),
                 fake_hosts.aggregate('b', ram_weight_multiplier='2'))
    assert utils.get_weight_multiplier(
        host, 'ram_weight_multiplier', 1.0) == -1.5
    assert utils.get_weight_multiplier(
        _host(), 'ram_weight_multiplier', 1.0) == 1.0


def test_instance_uuids_overlap():
    host = fake_hosts.host(instances=['u1', 'u2'])
    assert utils.instance_uuids_overlap(host, 'u2')
    assert utils.instance_uuids_overlap(host, ['x', 'u1'])
    assert not utils.instance_uuids_overlap(host, ['x'])


def test_parse_options_skips_malformed_entries():
    parsed = utils.parse_options(['a=1', 'b = -2.5', 'c', '=3', 'd=x'],
                                 converter=float, name='test')
    assert parsed == [('a', 1.0), ('b', -2.5)]


def test_spec_field_reads_unset_and_missing_fields_as_default():
    spec = objects.RequestSpec(project_id='p')
    assert utils.spec_field(spec, 'project_id') == 'p'
    assert utils.spec_field(spec, 'availability_zone', 'x') == 'x'
    assert utils.spec_field(spec, 'no_such_field', 'y') == 'y'


def test_request_helpers_tolerate_missing_flavor_and_image():
    spec = objects.RequestSpec(project_id='p')
    assert utils.extra_specs(spec) == {}
    assert utils.image_props(spec) is None
    assert utils.image_prop(spec, 'hw_architecture', 'd') == 'd'
    full = fake_hosts.spec(extra_specs={'a': 'b'},
                           image={'architecture': 'arm'})
    assert utils.extra_specs(full) == {'a': 'b'}
    assert utils.image_prop(full, 'hw_architecture') == 'arm'


def test_group_policy_reads_policy_or_older_policies():
    assert utils.group_policy(None) is None
    assert utils.group_policy(fake_hosts.Group('affinity')) == 'affinity'

    class Old:
        policies = ['anti-affinity']

    assert utils.group_policy(Old()) == 'anti-affinity'


def test_pci_pools_from_list_or_stats_object():
    pools = [{'vendor_id': '8086', 'count': 2}]
    assert utils.pci_pools(fake_hosts.host(pci_stats=pools)) == pools

    class Stats:
        pass

    stats = Stats()
    stats.pools = pools
    host = fake_hosts.host()
    host.pci_stats = stats
    assert utils.pci_pools(host) == pools
    host.pci_stats = None
    assert utils.pci_pools(host) == []
