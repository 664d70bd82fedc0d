"""2.88: hypervisors lose their resource figures and cpu_info, show
answers the node's uptime (null when its compute cannot say), and
statistics and {id}/uptime are gone."""

import datetime

import oslo_messaging as messaging
import pytest

from nova_lite import objects
from tests.unit.api import conftest
from tests.unit.api.shapes import conftest as shapes
from tests.unit.api import test_hypervisor_uptime
from tests.unit.api.test_hypervisor_uptime import LINE

ADMIN = conftest.make_context('admin', 'ops')
NODE = 'a4b0c0de-0000-4000-8000-000000000007'


@pytest.fixture
def world(monkeypatch):
    """test_hypervisor_uptime's compute, with a node that has figures."""
    found = test_hypervisor_uptime.world.__wrapped__(monkeypatch)
    node = objects.ComputeNode(
        id=7, uuid=NODE, service_id=2, host='cpu1',
        hypervisor_hostname='cpu1-node1', vcpus=8, memory_mb=16384,
        local_gb=100, vcpus_used=2, memory_mb_used=4096, local_gb_used=10,
        running_vms=2, hypervisor_type='fake', hypervisor_version=1000,
        cpu_info='{}', host_ip='192.0.2.7', stats={})
    monkeypatch.setattr(
        objects.ComputeNodeList, 'get_all_used_now', classmethod(
        lambda cls, context: objects.ComputeNodeList(objects=[node])))
    return found


def _get(api, at_version, version, path):
    return at_version(api(ADMIN), version)('GET', path)


def test_figures_until_2_87(api, at_version, world):
    resp = _get(api, at_version, '2.87', '/os-hypervisors/' + NODE)
    assert resp.status_int == 200, resp.text
    assert set(shapes.DROPPED_AT_2_88) <= set(resp.json['hypervisor'])
    assert 'uptime' not in resp.json['hypervisor']


def test_figures_gone_and_uptime_in_show_from_2_88(api, at_version,
                                                   world):
    schemas = shapes.TempestSchemas('hypervisors', '2.88')
    resp = _get(api, at_version, '2.88', '/os-hypervisors/' + NODE)
    shapes.check_shape(resp, shapes.hypervisor_at_2_88(schemas.get_hypervisor,
                                              'hypervisor'))
    view = resp.json['hypervisor']
    assert not set(shapes.DROPPED_AT_2_88) & set(view)
    assert view['uptime'] == LINE
    assert set(view) == {'id', 'hypervisor_hostname', 'state', 'status',
                         'hypervisor_type', 'hypervisor_version', 'host_ip',
                         'service', 'uptime'}
    resp = _get(api, at_version, '2.88', '/os-hypervisors/detail')
    shapes.check_shape(resp, shapes.hypervisor_at_2_88(
        schemas.list_hypervisors_detail, 'hypervisors', '[]'))
    [item] = resp.json['hypervisors']
    assert not set(shapes.DROPPED_AT_2_88) & set(item) and 'uptime' not in item


def _silent(context, host):
    raise messaging.MessagingTimeout('no reply')


@pytest.mark.parametrize('trouble', ['down', 'pinned', 'no call', 'silent'])
def test_uptime_is_null_when_the_compute_cannot_say(api, at_version,
                                                    world, trouble,
                                                    monkeypatch):
    if trouble == 'down':
        world.service.last_seen_up = datetime.datetime(2020, 1, 1)
    elif trouble == 'pinned':
        world.rpc.pinned_old = True
    elif trouble == 'no call':
        world.rpc.not_implemented = True
    else:
        monkeypatch.setattr(world.rpc, 'get_host_uptime', _silent)
    resp = _get(api, at_version, '2.88', '/os-hypervisors/' + NODE)
    assert resp.status_int == 200, resp.text
    assert resp.json['hypervisor']['uptime'] is None


@pytest.mark.parametrize('path', ['/os-hypervisors/statistics',
                                  '/os-hypervisors/%s/uptime' % NODE])
def test_statistics_and_uptime_are_404_from_2_88(api, at_version,
                                                 world, path):
    assert _get(api, at_version, '2.87', path).status_int == 200
    resp = _get(api, at_version, '2.88', path)
    assert resp.status_int == 404, resp.text
    assert world.rpc.asked == ([] if 'statistics' in path else [
        'cpu1'])


def test_show_is_still_for_administrators(api, at_version, world):
    resp = at_version(api(), '2.88')('GET', '/os-hypervisors/' + NODE)
    assert resp.status_int == 403
    assert world.rpc.asked == []
