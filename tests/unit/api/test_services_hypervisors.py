"""/os-services and /os-hypervisors (administrators)."""

import datetime

from oslo_utils import timeutils
import pytest
from tempest.lib.api_schema.response.compute.v2_33 import (
    hypervisors as v233_schemas)

from nova_lite import objects
from tests.unit.api import conftest
from tests.unit.api.shapes import conftest as shapes

ADMIN = conftest.make_context('admin', 'ops')


def _now():
    return timeutils.utcnow().replace(tzinfo=None)


@pytest.fixture
def services(monkeypatch):
    rows = [
        objects.Service(id=1, uuid='0c9c1d6e-0000-4000-8000-000000000001',
                        host='ctl', binary='nova-lite-conductor',
                        topic='conductor', disabled=False,
                        disabled_reason=None, forced_down=False,
                        last_seen_up=_now(), created_at=_now(),
                        updated_at=None),
        objects.Service(id=2, uuid='0c9c1d6e-0000-4000-8000-000000000002',
                        host='cpu1', binary='nova-lite-compute',
                        topic='compute', disabled=True,
                        disabled_reason='maintenance', forced_down=False,
                        last_seen_up=datetime.datetime(2020, 1, 1),
                        created_at=datetime.datetime(2020, 1, 1),
                        updated_at=None),
    ]
    calls = []

    def get_all(cls, context, binary=None, host=None):
        calls.append((binary, host))
        return objects.ServiceList(objects=[
            s for s in rows if binary in (None, s.binary)
            and host in (None, s.host)])
    monkeypatch.setattr(objects.ServiceList, 'get_all',
                        classmethod(get_all))
    # No aggregates: computes are in the default zone.
    monkeypatch.setattr(objects.AggregateList, 'get_all', classmethod(
        lambda cls, context: objects.AggregateList(objects=[])))
    return calls


@pytest.fixture
def nodes(monkeypatch, services):
    node = objects.ComputeNode(
        id=7, uuid='a4b0c0de-0000-4000-8000-000000000007', service_id=2,
        host='cpu1', hypervisor_hostname='cpu1-node1', vcpus=8,
        memory_mb=16384, local_gb=100, vcpus_used=2, memory_mb_used=4096,
        local_gb_used=10, running_vms=2, hypervisor_type='fake',
        hypervisor_version=1000, cpu_info='{}', host_ip='192.0.2.7',
        stats={'io_workload': '1'})
    monkeypatch.setattr(
        objects.ComputeNodeList, 'get_all_used_now', classmethod(
        lambda cls, context: objects.ComputeNodeList(objects=[node])))


def test_services_list(api, services):
    resp = api(ADMIN)('GET', '/os-services')
    assert resp.status_int == 200
    conductor, compute = resp.json['services']
    assert conductor['zone'] == 'internal'
    assert (conductor['status'], conductor['state']) == ('enabled', 'up')
    assert compute == {
        'id': 2, 'binary': 'nova-compute', 'host': 'cpu1',
        'zone': 'nova', 'status': 'disabled', 'state': 'down',
        'updated_at': '2020-01-01T00:00:00.000000',
        'disabled_reason': 'maintenance'}
    assert conductor['binary'] == 'nova-conductor'


@pytest.mark.parametrize('binary', ['nova-compute', 'nova-lite-compute'])
def test_services_filters(api, services, binary):
    # Nova's name is what clients send; the registered one works too.
    resp = api(ADMIN)('GET', '/os-services?binary=%s' % binary)
    assert [s['id'] for s in resp.json['services']] == [2]
    assert services == [('nova-lite-compute', None)]


def test_services_filter_unknown_binary(api, services):
    resp = api(ADMIN)('GET', '/os-services?binary=nova-network')
    assert resp.json['services'] == []


def test_services_need_admin(api, services):
    resp = api()('GET', '/os-services')
    assert resp.status_int == 403
    assert services == []


def test_hypervisors_list(api, nodes):
    resp = api(ADMIN)('GET', '/os-hypervisors')
    assert resp.json == {'hypervisors': [{
        'id': 7, 'hypervisor_hostname': 'cpu1-node1', 'state': 'down',
        'status': 'disabled'}]}


def test_hypervisors_detail_and_show(api, nodes):
    [detail] = api(ADMIN)('GET', '/os-hypervisors/detail').json[
        'hypervisors']
    assert detail['free_ram_mb'] == 12288
    assert detail['free_disk_gb'] == 90
    assert detail['current_workload'] == 1
    assert detail['service'] == {'id': 2, 'host': 'cpu1',
                                 'disabled_reason': 'maintenance'}
    assert detail['hypervisor_type'] == 'fake'
    assert detail['host_ip'] == '192.0.2.7'
    shown = api(ADMIN)('GET', '/os-hypervisors/7').json['hypervisor']
    assert shown == detail
    assert api(ADMIN)('GET', '/os-hypervisors/8').status_int == 404


def test_hypervisor_statistics(api, nodes):
    stats = api(ADMIN)('GET', '/os-hypervisors/statistics').json[
        'hypervisor_statistics']
    assert stats['count'] == 1
    assert stats['vcpus_used'] == 2
    assert stats['memory_mb'] == 16384


def test_hypervisors_need_admin(api, nodes):
    for path in ('/os-hypervisors', '/os-hypervisors/detail',
                 '/os-hypervisors/7', '/os-hypervisors/statistics'):
        assert api()('GET', path).status_int == 403


# -- search and servers (uptime: test_hypervisor_uptime.py) ------------

def test_hypervisor_search(api, nodes):
    resp = api(ADMIN)('GET', '/os-hypervisors/node1/search')
    assert resp.status_int == 200
    assert [h['hypervisor_hostname'] for h in resp.json['hypervisors']] == [
        'cpu1-node1']
    resp = api(ADMIN)('GET', '/os-hypervisors/nope/search')
    assert resp.status_int == 404
    assert 'nope' in resp.json['itemNotFound']['message']


def test_hypervisor_servers(api, nodes, monkeypatch):
    calls = []

    def by_filters(cls, context, filters, **kwargs):
        calls.append(filters)
        return objects.InstanceList(objects=[objects.Instance(
            id=10, uuid='c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30')])
    monkeypatch.setattr(objects.InstanceList, 'get_by_filters',
                        classmethod(by_filters))
    resp = api(ADMIN)('GET', '/os-hypervisors/cpu1/servers')
    assert resp.status_int == 200
    [hypervisor] = resp.json['hypervisors']
    assert hypervisor['servers'] == [{
        'uuid': 'c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30',
        'name': 'instance-0000000a'}]
    assert calls == [{'host': 'cpu1', 'node': 'cpu1-node1'}]
    # No servers: no "servers" key, as in Nova.
    monkeypatch.setattr(objects.InstanceList, 'get_by_filters', classmethod(
        lambda cls, context, filters, **kw: objects.InstanceList(
            objects=[])))
    [hypervisor] = api(ADMIN)('GET', '/os-hypervisors/cpu1/servers').json[
        'hypervisors']
    assert 'servers' not in hypervisor


@pytest.mark.parametrize('path', ['/os-hypervisors/7/uptime',
                                  '/os-hypervisors/cpu/search',
                                  '/os-hypervisors/cpu/servers'])
def test_hypervisor_extras_need_admin(api, nodes, path):
    assert api()('GET', path).status_int == 403


@pytest.mark.parametrize('version, cpu_info', [
    ('2.27', '{"arch": "x86_64", "model": "m"}'),
    ('2.28', {'arch': 'x86_64', 'model': 'm'})])
def test_hypervisor_cpu_info_is_an_object_from_2_28(
        api, at_version, nodes, monkeypatch, version, cpu_info):
    [node] = objects.ComputeNodeList.get_all_used_now(None)
    node.cpu_info = '{"arch": "x86_64", "model": "m"}'
    monkeypatch.setattr(
        objects.ComputeNodeList, 'get_all_used_now', classmethod(
        lambda cls, context: objects.ComputeNodeList(objects=[node])))
    admin = at_version(api(ADMIN), version)
    [detail] = admin('GET', '/os-hypervisors/detail').json['hypervisors']
    assert detail['cpu_info'] == cpu_info
    shown = admin('GET', '/os-hypervisors/7').json['hypervisor']
    assert shown['cpu_info'] == cpu_info


def test_hypervisor_without_cpu_info_at_2_28(api, at_version, nodes,
                                             monkeypatch):
    [node] = objects.ComputeNodeList.get_all_used_now(None)
    node.cpu_info = ''
    monkeypatch.setattr(
        objects.ComputeNodeList, 'get_all_used_now', classmethod(
        lambda cls, context: objects.ComputeNodeList(objects=[node])))
    admin = at_version(api(ADMIN), '2.28')
    assert admin('GET', '/os-hypervisors/7').json['hypervisor'][
        'cpu_info'] == {}


@pytest.fixture
def three_nodes(monkeypatch, nodes):
    [node] = objects.ComputeNodeList.get_all_used_now(None)
    values = {name: getattr(node, name) for name in node.fields
              if node.obj_attr_is_set(name)}
    copies = [objects.ComputeNode(**dict(
        values, id=node_id, hypervisor_hostname='node%d' % node_id))
        for node_id in (9, 7, 8)]
    monkeypatch.setattr(
        objects.ComputeNodeList, 'get_all_used_now', classmethod(
        lambda cls, context: objects.ComputeNodeList(objects=copies)))


@pytest.mark.parametrize('path', ['/os-hypervisors',
                                  '/os-hypervisors/detail'])
def test_hypervisors_page_from_2_33(api, at_version, three_nodes, path):
    admin = at_version(api(ADMIN), '2.33')
    resp = admin('GET', path + '?limit=2')
    shapes.check_shape(resp, (
        v233_schemas.list_hypervisors_detail if path.endswith('detail')
        else v233_schemas.list_search_hypervisors))
    page = resp.json
    assert [h['id'] for h in page['hypervisors']] == [7, 8]
    [link] = page['hypervisors_links']
    assert link['rel'] == 'next'
    assert link['href'].endswith(path + '?limit=2&marker=8')
    rest = admin('GET', path + '?limit=2&marker=8').json
    assert [h['id'] for h in rest['hypervisors']] == [9]
    assert 'hypervisors_links' not in rest
    assert admin('GET', path + '?marker=6').status_int == 400
    assert admin('GET', path + '?marker=x').status_int == 400
    assert admin('GET', path + '?limit=-1').status_int == 400


@pytest.mark.parametrize('path', ['/os-hypervisors',
                                  '/os-hypervisors/detail'])
def test_hypervisors_ignore_paging_before_2_33(api, at_version, three_nodes,
                                               path):
    admin = at_version(api(ADMIN), '2.32')
    page = admin('GET', path + '?limit=1&marker=x').json
    assert len(page['hypervisors']) == 3
    assert 'hypervisors_links' not in page


# -- 2.53: uuids, the name pattern and with_servers ------------------------

NODE_UUID = 'a4b0c0de-0000-4000-8000-000000000007'
SERVICE_UUID = '0c9c1d6e-0000-4000-8000-000000000002'
SERVER = 'c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30'


@pytest.fixture
def servers_of_nodes(monkeypatch):
    calls = []

    def by_filters(cls, context, filters, **kwargs):
        calls.append(filters)
        return objects.InstanceList(objects=[objects.Instance(
            id=10, uuid=SERVER)])
    monkeypatch.setattr(objects.InstanceList, 'get_by_filters',
                        classmethod(by_filters))
    return calls


def test_hypervisor_ids_are_uuids_from_2_53(api, at_version, nodes):
    old = at_version(api(ADMIN), '2.52')
    [listed] = old('GET', '/os-hypervisors/detail').json['hypervisors']
    assert (listed['id'], listed['service']['id']) == (7, 2)
    assert old('GET', '/os-hypervisors/' + NODE_UUID).status_int == 404
    new = at_version(api(ADMIN), '2.53')
    [listed] = new('GET', '/os-hypervisors/detail').json['hypervisors']
    assert (listed['id'], listed['service']['id']) == (
        NODE_UUID, SERVICE_UUID)
    assert new('GET', '/os-hypervisors').json['hypervisors'][0][
        'id'] == NODE_UUID
    shown = new('GET', '/os-hypervisors/' + NODE_UUID).json['hypervisor']
    assert shown == listed
    resp = new('GET', '/os-hypervisors/7')
    assert resp.status_int == 400
    assert 'Invalid uuid 7' in resp.text
    missing = 'a4b0c0de-0000-4000-8000-0000000000ff'
    assert new('GET', '/os-hypervisors/' + missing).status_int == 404
    # Found by its uuid (not 404); its compute is down in these
    # fixtures, hence 400 (test_hypervisor_uptime.py has the rest).
    assert new('GET', '/os-hypervisors/%s/uptime'
               % NODE_UUID).status_int == 400
    assert new('GET', '/os-hypervisors/7/uptime').status_int == 400


def test_with_servers_from_2_53(api, at_version, nodes, servers_of_nodes):
    new = at_version(api(ADMIN), '2.53')
    for path in ('/os-hypervisors', '/os-hypervisors/detail'):
        [plain] = new('GET', path).json['hypervisors']
        assert 'servers' not in plain
        [listed] = new('GET', path + '?with_servers=true').json[
            'hypervisors']
        assert listed['servers'] == [{'uuid': SERVER,
                                      'name': 'instance-0000000a'}]
        [listed] = new('GET', path + '?with_servers=false').json[
            'hypervisors']
        assert 'servers' not in listed
        assert new('GET', path + '?with_servers=x').status_int == 400
    shown = new('GET', '/os-hypervisors/%s?with_servers=1'
                % NODE_UUID).json['hypervisor']
    assert shown['servers'][0]['uuid'] == SERVER
    assert servers_of_nodes == [{'host': 'cpu1', 'node': 'cpu1-node1'}] * 3
    # Before 2.53 the parameter means nothing.
    [old] = at_version(api(ADMIN), '2.52')(
        'GET', '/os-hypervisors?with_servers=true').json['hypervisors']
    assert 'servers' not in old


def test_hostname_pattern_from_2_53(api, at_version, three_nodes):
    new = at_version(api(ADMIN), '2.53')
    for path in ('/os-hypervisors', '/os-hypervisors/detail'):
        resp = new('GET', path + '?hypervisor_hostname_pattern=node8')
        assert [h['hypervisor_hostname']
                for h in resp.json['hypervisors']] == ['node8']
        assert 'hypervisors_links' not in resp.json
        resp = new('GET', path + '?hypervisor_hostname_pattern=nope')
        assert resp.status_int == 404
        assert 'nope' in resp.text
        for paging in ('limit=1', 'marker=x'):
            resp = new('GET', path + '?hypervisor_hostname_pattern=node&'
                       + paging)
            assert resp.status_int == 400
            assert 'Paging over hypervisors' in resp.text
    # Before 2.53: ignored.
    old = at_version(api(ADMIN), '2.52')(
        'GET', '/os-hypervisors?hypervisor_hostname_pattern=node8')
    assert len(old.json['hypervisors']) == 3


def test_pages_by_uuid_from_2_53(api, at_version, three_nodes, monkeypatch):
    [n9, n7, n8] = objects.ComputeNodeList.get_all_used_now(None)
    for node in (n9, n7, n8):
        node.uuid = 'a4b0c0de-0000-4000-8000-00000000000%d' % node.id
    new = at_version(api(ADMIN), '2.53')
    page = new('GET', '/os-hypervisors?limit=2').json
    assert [h['hypervisor_hostname'] for h in page['hypervisors']] == [
        'node7', 'node8']
    assert page['hypervisors_links'][0]['href'].endswith(
        'marker=%s' % n8.uuid)
    rest = new('GET', '/os-hypervisors?marker=%s' % n8.uuid).json
    assert [h['id'] for h in rest['hypervisors']] == [n9.uuid]
    assert new('GET', '/os-hypervisors?marker=8').status_int == 400


def test_search_and_servers_are_gone_from_2_53(api, at_version, nodes,
                                                servers_of_nodes):
    for path in ('/os-hypervisors/node1/search',
                 '/os-hypervisors/node1/servers'):
        assert at_version(api(ADMIN), '2.52')(
            'GET', path).status_int == 200
        assert at_version(api(ADMIN), '2.53')(
            'GET', path).status_int == 404


def test_with_servers_shows_an_empty_list_from_2_75(api, at_version, nodes,
                                                    monkeypatch):
    monkeypatch.setattr(objects.InstanceList, 'get_by_filters', classmethod(
        lambda cls, context, filters, **kwargs: objects.InstanceList(
            objects=[])))
    for version, expected in (('2.74', None), ('2.75', [])):
        call = at_version(api(ADMIN), version)
        for path in ('/os-hypervisors', '/os-hypervisors/detail'):
            [listed] = call('GET', path + '?with_servers=true').json[
                'hypervisors']
            assert listed.get('servers') == expected
        shown = call('GET', '/os-hypervisors/%s?with_servers=1'
                     % NODE_UUID).json['hypervisor']
        assert shown.get('servers') == expected
    [plain] = at_version(api(ADMIN), '2.75')(
        'GET', '/os-hypervisors').json['hypervisors']
    assert 'servers' not in plain
