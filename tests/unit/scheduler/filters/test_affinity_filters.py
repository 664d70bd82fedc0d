"""SameHostFilter, DifferentHostFilter and SimpleCIDRAffinityFilter."""

import pytest

from nova_lite.scheduler.filters import different_host_filter
from nova_lite.scheduler.filters import same_host_filter
from nova_lite.scheduler.filters import simple_cidr_affinity_filter as cidr

from .. import fake_hosts

A = 'a0cf03a5-d921-4877-bb5c-86d26cf818e1'
B = '8c19174f-4220-44f0-824a-cd1eeef10287'


def _hosts():
    return [fake_hosts.host('with-a', instances=[A]),
            fake_hosts.host('with-b', instances=[B, 'other']),
            fake_hosts.host('empty')]


def _kept(flt, hints):
    spec = fake_hosts.spec(hints=hints)
    return fake_hosts.names(flt.filter_all(_hosts(), spec))


@pytest.mark.parametrize('hints,same,different', [
    ({}, ['with-a', 'with-b', 'empty'], ['with-a', 'with-b', 'empty']),
    ({'same_host': A}, ['with-a'], None),
    ({'same_host': [A, B]}, ['with-a', 'with-b'], None),
    ({'different_host': A}, None, ['with-b', 'empty']),
    ({'different_host': [A, B]}, None, ['empty']),
])
def test_hints(hints, same, different):
    if same is not None:
        assert _kept(same_host_filter.SameHostFilter(), hints) == same
    if different is not None:
        assert _kept(different_host_filter.DifferentHostFilter(),
                     hints) == different


def test_reasons_and_once_per_request():
    same = same_host_filter.SameHostFilter()
    diff = different_host_filter.DifferentHostFilter()
    spec = fake_hosts.spec(hints={'same_host': A, 'different_host': A})
    hosts = _hosts()
    assert same.rejection_reason(hosts[2], spec) == 'run none of same_host'
    assert diff.rejection_reason(hosts[0], spec) == (
        'run a different_host instance')
    assert same.run_filter_once_per_request
    assert diff.run_filter_once_per_request


def _cidr_passes(host_ip, hints):
    host = fake_hosts.host(host_ip=host_ip)
    return cidr.SimpleCIDRAffinityFilter().host_passes(
        host, fake_hosts.spec(hints=hints))


@pytest.mark.parametrize('host_ip,hints,expected', [
    ('10.0.0.5', {}, True),
    ('192.168.1.77', {'build_near_host_ip': '192.168.1.1',
                      'cidr': '/24'}, True),
    ('192.168.2.77', {'build_near_host_ip': '192.168.1.1',
                      'cidr': '/24'}, False),
    # The seeds' API example gives the prefix without its slash.
    ('192.168.1.77', {'build_near_host_ip': '192.168.1.1',
                      'cidr': '24'}, True),
    # cidr defaults to /24.
    ('192.168.1.200', {'build_near_host_ip': '192.168.1.1'}, True),
    ('192.168.0.200', {'build_near_host_ip': '192.168.1.1',
                       'cidr': '/16'}, True),
    ('fd00::5', {'build_near_host_ip': 'fd00::1', 'cidr': '/64'}, True),
])
def test_cidr(host_ip, hints, expected):
    assert _cidr_passes(host_ip, hints) is expected


def test_cidr_reasons():
    flt = cidr.SimpleCIDRAffinityFilter()
    hints = {'build_near_host_ip': '192.168.1.1', 'cidr': '/24'}
    spec = fake_hosts.spec(hints=hints)
    assert flt.rejection_reason(fake_hosts.host(host_ip='10.0.0.1'),
                                spec) == 'outside 192.168.1.0/24'
    assert flt.rejection_reason(fake_hosts.host(host_ip=None),
                                spec) == 'have no host_ip'
    bad = fake_hosts.spec(hints={'build_near_host_ip': 'near', 'cidr': '8'})
    assert not flt.host_passes(fake_hosts.host(host_ip='10.0.0.1'), bad)
    assert flt.rejection_reason(fake_hosts.host(host_ip='10.0.0.1'),
                                bad) == 'bad cidr hints'
