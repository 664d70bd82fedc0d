"""AggregateTypeAffinityFilter: instance_type metadata."""

import pytest

from nova_lite.scheduler.filters import type_filter

from .. import fake_hosts


@pytest.mark.parametrize('metadata,flavor,expected', [
    (None, 'm1.small', True),
    ('m1.nano', 'm1.nano', True),
    ('m1.nano', 'm1.small', False),
    ('m1.nano,m1.small', 'm1.small', True),
    ('m1.nano, m1.small', 'm1.small', True),
    ('m1.nano', 'm1.nan', False),   # whole names, not substrings
])
def test_instance_type_metadata(metadata, flavor, expected):
    aggregates = ([fake_hosts.aggregate('a', instance_type=metadata)]
                  if metadata else [])
    host = fake_hosts.host(aggregates=aggregates)
    flt = type_filter.AggregateTypeAffinityFilter()
    spec = fake_hosts.spec(flavor_name=flavor)
    assert flt.host_passes(host, spec) is expected
    if not expected:
        assert (flt.rejection_reason(host, spec)
                == 'flavor %s not allowed' % flavor)


def test_any_of_several_aggregates_may_allow():
    host = fake_hosts.host(aggregates=[
        fake_hosts.aggregate('a', instance_type='m1.nano'),
        fake_hosts.aggregate('b', instance_type='m1.large')])
    flt = type_filter.AggregateTypeAffinityFilter()
    assert flt.host_passes(host, fake_hosts.spec(flavor_name='m1.large'))
