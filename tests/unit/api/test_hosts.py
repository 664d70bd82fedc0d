"""/os-hosts over fake services, nodes and instances."""

import pytest
from tempest.lib.api_schema.response.compute.v2_1 import hosts as schemas

from nova_lite import exception
from nova_lite import objects
from tests.unit.api import conftest
from tests.unit.api import fakes
from tests.unit.api.shapes import conftest as shapes

ADMIN = conftest.make_context('admin', 'ops')


@pytest.fixture
def cloud(monkeypatch):
    services = [
        objects.Service(id=1, host='ctl', binary='nova-lite-conductor'),
        objects.Service(id=2, host='c1', binary='nova-lite-compute')]
    node = objects.ComputeNode(
        id=1, host='c1', hypervisor_hostname='c1-n1', vcpus=8,
        memory_mb=16384, local_gb=100, vcpus_used=3, memory_mb_used=2048,
        local_gb_used=12)
    instances = [
        fakes.instance(uuid='00000000-0000-4000-8000-000000000001',
                       vcpus=2, memory_mb=1024, root_gb=10, ephemeral_gb=2),
        fakes.instance(uuid='00000000-0000-4000-8000-000000000002',
                       project_id='proj2', vcpus=1, memory_mb=1024,
                       root_gb=1)]

    def by_host_and_binary(cls, context, host, binary):
        for service in services:
            if (service.host, service.binary) == (host, binary):
                return service
        raise exception.ServiceNotFound(service_id=host)
    monkeypatch.setattr(objects.ServiceList, 'get_all', classmethod(
        lambda cls, context, binary=None, host=None:
            objects.ServiceList(objects=services)))
    monkeypatch.setattr(objects.Service, 'get_by_host_and_binary',
                        classmethod(by_host_and_binary))
    monkeypatch.setattr(objects.AggregateList, 'get_all', classmethod(
        lambda cls, context: objects.AggregateList(objects=[
            objects.Aggregate(id=1, name='a', hosts=['c1'],
                              metadata={'availability_zone': 'az1'})])))
    monkeypatch.setattr(objects.ComputeNodeList, 'get_all_used_now',
                        classmethod(lambda cls, context, host:
                                    objects.ComputeNodeList(objects=[node])))
    monkeypatch.setattr(objects.InstanceList, 'get_by_host',
                        classmethod(lambda cls, context, host:
                                    objects.InstanceList(objects=instances)))


def test_list(api, cloud):
    resp = api(ADMIN)('GET', '/os-hosts')
    assert resp.json == {'hosts': [
        {'host_name': 'ctl', 'service': 'conductor', 'zone': 'internal'},
        {'host_name': 'c1', 'service': 'compute', 'zone': 'az1'}]}
    shapes.check_shape(resp, schemas.list_hosts)
    resp = api(ADMIN)('GET', '/os-hosts?zone=az1')
    assert [h['host_name'] for h in resp.json['hosts']] == ['c1']


def test_show(api, cloud):
    resp = api(ADMIN)('GET', '/os-hosts/c1')
    assert resp.status_int == 200
    shapes.check_shape(resp, schemas.get_host_detail)
    rows = {r['resource']['project']: r['resource']
            for r in resp.json['host']}
    assert list(rows) == ['(total)', '(used_now)', '(used_max)', 'proj1',
                          'proj2']
    assert (rows['(total)']['cpu'], rows['(used_now)']['memory_mb']) == (
        8, 2048)
    assert rows['(used_max)'] == {'host': 'c1', 'project': '(used_max)',
                                  'cpu': 3, 'memory_mb': 2048,
                                  'disk_gb': 13}
    assert rows['proj1']['disk_gb'] == 12


@pytest.mark.parametrize('method,path,body', [
    ('GET', '/os-hosts/ctl', None), ('GET', '/os-hosts/nope', None),
    ('PUT', '/os-hosts/nope', {'status': 'enable'}),
    ('GET', '/os-hosts/nope/reboot', None),
])
def test_not_a_compute_host_is_404(api, cloud, method, path, body):
    assert api(ADMIN)(method, path, body).status_int == 404


@pytest.mark.parametrize('method,path,body', [
    ('PUT', '/os-hosts/c1', {'status': 'disable'}),
    ('PUT', '/os-hosts/c1', {'maintenance_mode': 'enable'}),
    ('GET', '/os-hosts/c1/startup', None),
    ('GET', '/os-hosts/c1/shutdown', None),
    ('GET', '/os-hosts/c1/reboot', None),
])
def test_driver_actions_are_501(api, cloud, method, path, body):
    resp = api(ADMIN)(method, path, body)
    assert resp.status_int == 501
    assert 'c1' in resp.json['notImplemented']['message']


@pytest.mark.parametrize('body', [{}, {'status': 'on'}, {'other': 'x'}])
def test_bad_update_bodies(api, cloud, body):
    assert api(ADMIN)('PUT', '/os-hosts/c1', body).status_int == 400


@pytest.mark.parametrize('path', ['/os-hosts', '/os-hosts/c1',
                                  '/os-hosts/c1/reboot'])
def test_for_administrators(api, cloud, path):
    assert api()('GET', path).status_int == 403


@pytest.mark.parametrize('method, path, body', [
    ('GET', '/os-hosts', None), ('GET', '/os-hosts/c1', None),
    ('PUT', '/os-hosts/c1', {'status': 'enable'}),
    ('GET', '/os-hosts/c1/startup', None),
    ('GET', '/os-hosts/c1/shutdown', None),
    ('GET', '/os-hosts/c1/reboot', None)])
def test_gone_from_2_43(api, at_version, cloud, method, path, body):
    before = at_version(api(ADMIN), '2.42')(method, path, body)
    assert before.status_int in (200, 501), before.text
    resp = at_version(api(ADMIN), '2.43')(method, path, body)
    assert resp.status_int == 404, resp.text
