"""AggregateInstanceExtraSpecsFilter: flavor extra specs vs aggregate
metadata."""

import pytest

from nova_lite.scheduler.filters import aggregate_instance_extra_specs as f

from .. import fake_hosts

SCOPE = 'aggregate_instance_extra_specs:'


def _host(*aggregates):
    return fake_hosts.host(aggregates=aggregates)


def _passes(specs, host):
    return f.AggregateInstanceExtraSpecsFilter().host_passes(
        host, fake_hosts.spec(extra_specs=specs))


def test_flavor_without_extra_specs_passes_any_host():
    assert _passes({}, _host())


@pytest.mark.parametrize('specs,expected', [
    ({SCOPE + 'ssd': 'true'}, True),
    ({SCOPE + 'ssd': 'false'}, False),
    ({'ssd': 'true'}, True),                    # unscoped counts too
    ({SCOPE + 'speed': '>= 10'}, True),
    ({SCOPE + 'speed': '>= 40'}, False),
    ({SCOPE + 'tier': 'gold'}, True),           # one of "gold, silver"
    ({SCOPE + 'tier': '<or> bronze <or> silver'}, True),
    ({SCOPE + 'gpu': 'true'}, False),           # key in no aggregate
    ({'hw:cpu_policy': 'dedicated', 'capabilities:x': '1'}, True),
])
def test_requirements(specs, expected):
    host = _host(fake_hosts.aggregate('a', ssd='true', speed='25'),
                 fake_hosts.aggregate('b', tier='gold, silver'))
    assert _passes(specs, host) is expected


def test_any_aggregate_value_may_match():
    host = _host(fake_hosts.aggregate('a', ssd='false'),
                 fake_hosts.aggregate('b', ssd='true'))
    assert _passes({SCOPE + 'ssd': 'true'}, host)


def test_host_in_no_aggregate_fails_scoped_spec():
    flt = f.AggregateInstanceExtraSpecsFilter()
    spec = fake_hosts.spec(extra_specs={SCOPE + 'ssd': 'true'})
    assert not flt.host_passes(_host(), spec)
    assert flt.rejection_reason(_host(), spec) == 'lack aggregate ssd'


def test_rejection_reason_for_mismatch():
    flt = f.AggregateInstanceExtraSpecsFilter()
    host = _host(fake_hosts.aggregate('a', ssd='false'))
    spec = fake_hosts.spec(extra_specs={SCOPE + 'ssd': 'true'})
    assert (flt.rejection_reason(host, spec)
            == 'aggregate ssd does not match true')
