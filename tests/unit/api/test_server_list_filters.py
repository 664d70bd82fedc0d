"""2.83: the server list's attribute filters, for administrators at every
version and for everyone from 2.83."""

import pytest

from nova_lite.api.handlers import servers
from tests.unit.api import conftest
from tests.unit.api import fakes

ADMIN = conftest.make_context('admin', 'ops')
QUERY = ('availability_zone=az1&key_name=key&user_id=u2&power_state=1'
         '&vm_state=active&vm_state=stopped&task_state=powering-on'
         '&created_at=2026-01-02T03:04:05Z'
         '&launched_at=2026-01-02T04:00:00%2B01:00&terminated_at='
         '&config_drive=&progress=0')
EXPECTED = {'availability_zone': 'az1', 'key_name': 'key', 'user_id': 'u2',
            'power_state': 1, 'vm_state': ['active', 'stopped'],
            'task_state': ['powering-on']}


@pytest.fixture
def compute(monkeypatch):
    fake = fakes.FakeComputeAPI([fakes.instance()])
    monkeypatch.setattr(servers, 'compute', fake)
    return fake


def _filters(compute):
    filters = dict(compute.get_all_calls[-1]['filters'])
    times = {name: filters.pop(name) for name in
             ('created_at', 'launched_at') if name in filters}
    return filters, times


@pytest.mark.parametrize('path', ['/servers', '/servers/detail'])
def test_users_filters_count_from_2_83(api, at_version, compute, path):
    resp = at_version(api(), '2.83')('GET', path + '?' + QUERY)
    assert resp.status_int == 200, resp.text
    filters, times = _filters(compute)
    assert filters == EXPECTED
    assert [str(t) for t in times.values()] == ['2026-01-02 03:04:05',
                                                 '2026-01-02 03:00:00']


def test_users_filters_ignored_before_2_83(api, at_version, compute):
    resp = at_version(api(), '2.82')('GET', '/servers?' + QUERY)
    assert resp.status_int == 200, resp.text
    assert compute.get_all_calls[-1]['filters'] == {}


def test_administrators_filter_at_every_version(api, compute):
    resp = api(ADMIN)('GET', '/servers/detail?' + QUERY)
    assert resp.status_int == 200, resp.text
    assert _filters(compute)[0] == EXPECTED


@pytest.mark.parametrize('query', ['config_drive=True', 'progress=50'])
def test_values_no_server_here_has_match_nothing(api, at_version, compute,
                                                 query):
    resp = at_version(api(), '2.83')('GET', '/servers?' + query)
    assert resp.json == {'servers': []}
    assert compute.get_all_calls == []


@pytest.mark.parametrize('query', ['power_state=on', 'progress=half',
                                   'created_at=yesterday'])
def test_malformed_values_are_400(api, at_version, compute, query):
    resp = at_version(api(), '2.83')('GET', '/servers?' + query)
    assert resp.status_int == 400, resp.text
    assert query.split('=')[0] in resp.text


def test_deleted_vm_state_needs_an_administrator(api, at_version, compute):
    resp = at_version(api(), '2.83')('GET', '/servers?vm_state=deleted')
    assert resp.status_int == 403
    assert compute.get_all_calls == []
