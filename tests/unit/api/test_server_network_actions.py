"""The network proxy's server actions: answered as Nova answers when the
network or address named does not exist (there is none here), and 404
from 2.44, where Nova removed them, whatever the body."""

import pytest

from nova_lite.api.handlers import server_actions
from tests.unit.api import conftest
from tests.unit.api import fakes

UUID = 'c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30'
ADMIN = conftest.make_context('admin', 'adminproj')


@pytest.fixture
def compute(monkeypatch):
    fake = fakes.FakeComputeAPI([fakes.instance(vm_state='active')])
    monkeypatch.setattr(server_actions, 'compute', fake)
    return fake


def _act(api, at_version, version, body):
    return at_version(api(), version)(
        'POST', '/servers/%s/action' % UUID, body)


@pytest.mark.parametrize('body, status, words', [
    ({'addFixedIp': {'networkId': 'net1'}}, 404, 'Network net1'),
    ({'removeFixedIp': {'address': '10.0.0.4'}}, 400, '10.0.0.4'),
    ({'addFloatingIp': {'address': '172.24.4.9'}}, 404, '172.24.4.9'),
    ({'removeFloatingIp': {'address': '172.24.4.9'}}, 404, '172.24.4.9')])
def test_nothing_to_name_before_2_44(api, at_version, compute, body,
                                     status, words):
    resp = _act(api, at_version, '2.43', body)
    assert resp.status_int == status, resp.text
    assert words in resp.text


@pytest.mark.parametrize('body', [
    {'addFixedIp': {}}, {'removeFixedIp': {'address': 'x'}},
    {'addFloatingIp': {'address': '1.2.3.4', 'extra': 1}},
    {'removeFloatingIp': None}])
def test_bad_bodies_are_400_before_2_44(api, at_version, compute, body):
    assert _act(api, at_version, '2.1', body).status_int == 400


@pytest.mark.parametrize('body', [
    {'addFixedIp': {'networkId': 'net1'}}, {'removeFixedIp': {}},
    {'addFloatingIp': {'address': '172.24.4.9'}},
    {'removeFloatingIp': None}])
def test_404_from_2_44(api, at_version, compute, body):
    resp = _act(api, at_version, '2.44', body)
    assert resp.status_int == 404, resp.text


def test_unknown_actions_stay_400(api, at_version, compute):
    resp = _act(api, at_version, '2.44', {'fly': {}})
    assert resp.status_int == 400


_ACTIONS = [{'addFixedIp': {'networkId': 'net1'}},
            {'removeFixedIp': {'address': '10.0.0.4'}},
            {'addFloatingIp': {'address': '172.24.4.9'}},
            {'removeFloatingIp': {'address': '172.24.4.9'}}]


@pytest.mark.parametrize('body', _ACTIONS)
def test_a_reader_of_the_project_is_refused(api, compute, body):
    """Nova's os-multinic and os-floating-ips defaults: members and
    administrators only; what the action would say stays unsaid."""
    reader = conftest.make_context('viewer', 'proj1', ['reader'])
    resp = api(reader)('POST', '/servers/%s/action' % UUID, body)
    assert resp.status_int == 403, resp.text
    assert 'os_compute_api:os-' in resp.text


@pytest.mark.parametrize('body', _ACTIONS)
def test_another_projects_server_is_404(api, compute, body):
    other = conftest.make_context('eve', 'proj2')
    resp = api(other)('POST', '/servers/%s/action' % UUID, body)
    assert resp.status_int == 404
    assert UUID in resp.text


@pytest.mark.parametrize('body', _ACTIONS)
def test_an_administrator_gets_novas_answer(api, compute, body):
    resp = api(ADMIN)('POST', '/servers/%s/action' % UUID, body)
    assert resp.status_int in (400, 404)
    assert 'Policy' not in resp.text
