"""GET /servers/{id}/topology (2.78): Nova's answer for a server without
a NUMA topology, Nova's policies, and 404 before 2.78."""

import pytest

from nova_lite.api.handlers import server_topology
from nova_lite import policy
from tests.unit.api import conftest
from tests.unit.api import fakes

UUID = fakes.instance().uuid
ADMIN = conftest.make_context('admin', 'ops')


@pytest.fixture
def compute(monkeypatch):
    fake = fakes.FakeComputeAPI([fakes.instance()])
    monkeypatch.setattr(server_topology, 'compute', fake)
    return fake


@pytest.fixture
def checked(monkeypatch):
    """The policy rules checked, and whether each passed."""
    seen = []
    real = policy.authorize

    def authorize(context, action, target=None, fatal=True):
        try:
            result = real(context, action, target, fatal=fatal)
        except Exception:
            seen.append((action, False))
            raise
        seen.append((action, bool(result)))
        return result
    monkeypatch.setattr(policy, 'authorize', authorize)
    return seen


def _get(api, at_version, version, context=None, server=UUID):
    return at_version(api(context), version)(
        'GET', '/servers/%s/topology' % server)


def test_404_before_2_78(api, at_version, compute):
    assert _get(api, at_version, '2.77').status_int == 404


def test_a_server_without_a_numa_topology(api, at_version, compute,
                                          checked):
    resp = _get(api, at_version, '2.78')
    assert resp.status_int == 200, resp.text
    assert resp.json == {'nodes': [], 'pagesize_kb': None}
    assert checked == [(server_topology.policies.INDEX, True),
                       (server_topology.policies.HOST_INDEX, False)]


def test_administrators_are_checked_for_the_host_side(api, at_version,
                                                      compute, checked):
    resp = _get(api, at_version, '2.78', ADMIN)
    assert resp.status_int == 200, resp.text
    assert (server_topology.policies.HOST_INDEX, True) in checked


def test_another_projects_server_is_404(api, at_version, compute):
    other = conftest.make_context('eve', 'proj2')
    assert _get(api, at_version, '2.78', other).status_int == 404
    assert _get(api, at_version, '2.78',
                server='11111111-2222-3333-4444-555555555555'
                ).status_int == 404
