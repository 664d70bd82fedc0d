"""GET /os-hypervisors/{id}/uptime: the compute's uptime line in Nova's
shape (checked against tempest.lib's schema), and Nova's errors: 404 for
an unknown hypervisor, 400 when its compute service is down, 501 when the
compute cannot say (pinned below RPC 1.7, or a driver without the call).
"""

import datetime

import jsonschema
import oslo_messaging as messaging
from oslo_utils import timeutils
import pytest
from tempest.lib.api_schema.response.compute.v2_1 import (
    hypervisors as v2_1)

from nova_lite.api.handlers import hypervisors
from nova_lite import objects
from nova_lite.virt import fake_diagnostics
from tests.unit.api import conftest

ADMIN = conftest.make_context('admin', 'ops')
LINE = fake_diagnostics.format_uptime(3600, load=(0.5, 0.25, 0.1))


class FakeComputeRPC:
    def __init__(self):
        self.pinned_old = False
        self.not_implemented = False
        self.asked = []

    def can_send_diagnostics(self):
        return not self.pinned_old

    def get_host_uptime(self, context, host):
        self.asked.append(host)
        if self.not_implemented:
            raise NotImplementedError()
        return LINE


@pytest.fixture
def world(monkeypatch):
    now = timeutils.utcnow().replace(tzinfo=None)
    service = objects.Service(
        id=2, uuid='0c9c1d6e-0000-4000-8000-000000000002', host='cpu1',
        binary='nova-lite-compute', topic='compute', disabled=False,
        disabled_reason=None, forced_down=False, last_seen_up=now,
        created_at=now, updated_at=None)
    node = objects.ComputeNode(
        id=7, uuid='a4b0c0de-0000-4000-8000-000000000007', service_id=2,
        host='cpu1', hypervisor_hostname='cpu1-node1')
    monkeypatch.setattr(objects.ServiceList, 'get_all', classmethod(
        lambda cls, context, binary=None, host=None: objects.ServiceList(
            objects=[service])))
    monkeypatch.setattr(
        objects.ComputeNodeList, 'get_all_used_now', classmethod(
        lambda cls, context: objects.ComputeNodeList(objects=[node])))
    rpc = FakeComputeRPC()
    monkeypatch.setattr(hypervisors.host_api, '_compute', rpc)
    return type('World', (), {'service': service, 'rpc': rpc})


def test_the_computes_uptime_in_novas_shape(api, world):
    resp = api(ADMIN)('GET', '/os-hypervisors/7/uptime')
    assert resp.status_int == 200, resp.text
    jsonschema.validate(resp.json,
                        v2_1.get_hypervisor_uptime['response_body'])
    assert resp.json == {'hypervisor': {
        'id': 7, 'hypervisor_hostname': 'cpu1-node1', 'state': 'up',
        'status': 'enabled', 'uptime': LINE}}
    assert world.rpc.asked == ['cpu1']


def test_an_unknown_hypervisor_is_404(api, world):
    resp = api(ADMIN)('GET', '/os-hypervisors/8/uptime')
    assert resp.status_int == 404
    assert world.rpc.asked == []


@pytest.mark.parametrize('down', ['forced_down', 'silent'])
def test_a_compute_that_is_down_is_400(api, world, down):
    if down == 'forced_down':
        world.service.forced_down = True
    else:
        world.service.last_seen_up = datetime.datetime(2020, 1, 1)
    resp = api(ADMIN)('GET', '/os-hypervisors/7/uptime')
    assert resp.status_int == 400
    assert 'cpu1 is down' in resp.text
    assert world.rpc.asked == []


def test_a_disabled_compute_still_answers(api, world):
    world.service.disabled = True
    resp = api(ADMIN)('GET', '/os-hypervisors/7/uptime')
    assert resp.status_int == 200
    assert resp.json['hypervisor']['status'] == 'disabled'


def test_pinned_below_1_7_is_501(api, world):
    world.rpc.pinned_old = True
    resp = api(ADMIN)('GET', '/os-hypervisors/7/uptime')
    assert resp.status_int == 501
    assert 'pinned below RPC version 1.7' in resp.text
    assert world.rpc.asked == []


def test_a_driver_without_the_call_is_501(api, world):
    world.rpc.not_implemented = True
    resp = api(ADMIN)('GET', '/os-hypervisors/7/uptime')
    assert resp.status_int == 501
    assert 'virt driver has no such call' in resp.text


def test_non_administrators_are_refused(api, world):
    resp = api()('GET', '/os-hypervisors/7/uptime')
    assert resp.status_int == 403
    assert world.rpc.asked == []


def test_a_compute_that_does_not_answer_is_503_naming_it(api, world,
                                                        monkeypatch):
    def silent(context, host):
        raise messaging.MessagingTimeout('no reply')
    monkeypatch.setattr(world.rpc, 'get_host_uptime', silent)
    resp = api(ADMIN)('GET', '/os-hypervisors/7/uptime')
    assert resp.status_int == 503
    assert 'compute service of host cpu1' in resp.text
    assert resp.headers['Retry-After']
