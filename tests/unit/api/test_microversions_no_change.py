"""The versions from 2.76 to 2.88 that change nothing nova_lite serves
(2.76 and 2.82: external events; 2.79 and 2.85: volume attachments; 2.87:
rescue) answer as on either side of them: the routes stay unknown (404)
and the rescue action stays unknown (400), never a 500."""

import pytest

from nova_lite.api.handlers import server_actions
from tests.unit.api import conftest
from tests.unit.api import fakes

ADMIN = conftest.make_context('admin', 'ops')
UUID = fakes.instance().uuid


@pytest.fixture
def compute(monkeypatch):
    fake = fakes.FakeComputeAPI([fakes.instance()])
    monkeypatch.setattr(server_actions, 'compute', fake)
    return fake


@pytest.mark.parametrize('version', ['2.75', '2.76', '2.82', '2.88'])
def test_external_events_are_not_served(api, at_version, version):
    body = {'events': [{'name': 'power-update', 'server_uuid': UUID,
                        'tag': 'POWER_OFF'}]}
    resp = at_version(api(ADMIN), version)(
        'POST', '/os-server-external-events', body)
    assert resp.status_int == 404


@pytest.mark.parametrize('version', ['2.78', '2.79', '2.85', '2.88'])
@pytest.mark.parametrize('method, suffix, body', [
    ('GET', '', None),
    ('PUT', '/' + UUID, {'volumeAttachment': {
        'volumeId': UUID, 'delete_on_termination': True}})])
def test_volume_attachments_are_not_served(api, at_version, version,
                                           method, suffix, body):
    resp = at_version(api(ADMIN), version)(
        method, '/servers/%s/os-volume_attachments%s' % (UUID, suffix),
        body)
    assert resp.status_int == 404


@pytest.mark.parametrize('version', ['2.86', '2.87', '2.88'])
def test_rescue_is_not_an_action_here(api, at_version, compute, version):
    resp = at_version(api(ADMIN), version)(
        'POST', '/servers/%s/action' % UUID, {'rescue': None})
    assert resp.status_int == 400, resp.text
