"""Compute RPC 1.7 and 1.8 on the real daemons (RabbitMQ, PostgreSQL):
server diagnostics, a hypervisor's uptime, createBackup with its
rotation, and the task-status filters of the server list on the real
instances query.

One compute, ``c1``, of one node; responses are checked against
tempest.lib's schemas where it has one.
"""

import re

import jsonschema
import pytest
import sqlalchemy as sa
from tempest.lib.api_schema.response.compute.v2_1 import (
    hypervisors as hypervisors_21)
from tempest.lib.api_schema.response.compute.v2_48 import (
    servers as servers_248)

from tests.functional import conftest
from tests.functional import deployment
from tests.functional import test_moves_daemons as moves

COMPUTES = {'c1': {'node_count': 1, 'vcpus': 8, 'memory_mb': 8192,
                   'local_gb': 100}}
UPTIME_LINE = re.compile(r'^ \d\d:\d\d:\d\d up .*,  \d+ users,  '
                         r'load average: [\d.]+, [\d.]+, [\d.]+$')


def _at(version):
    return {'headers': {'OpenStack-API-Version': 'compute %s' % version}}


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    with conftest.deployed(module_tmp / 'postgresql', request,
                           backend='postgresql', computes=COMPUTES) as d:
        d.image_id = d.register_image()
        conftest.add_flavors(d, {'m1': {'ram': 512, 'vcpus': 2,
                                        'disk': 1}})
        yield d


def _boot(deploy, name='sv'):
    status, _, body = deploy.admin_api.post('/servers', {'server': {
        'name': name, 'imageRef': deploy.image_id, 'flavorRef': 'm1'}})
    assert status == 202, body
    return moves._wait(deploy, body['server']['id'], 'ACTIVE')['id']


def _wait_task_done(deploy, uuid):
    return deployment.wait_for(
        lambda: (moves._server(deploy, uuid)['OS-EXT-STS:task_state']
                 is None and moves._server(deploy, uuid)),
        timeout=60, message='%s task done' % uuid)


# -- diagnostics --------------------------------------------------------------

def test_diagnostics_of_a_running_server_in_both_shapes(deploy):
    uuid = _boot(deploy)
    url = '/servers/%s/diagnostics' % uuid
    status, _, old = deploy.admin_api.get(url, **_at('2.47'))
    assert status == 200, old
    assert old['memory'] == 512 * 1024 and 'cpu1_time' in old
    status, _, new = deploy.admin_api.get(url, **_at('2.48'))
    assert status == 200, new
    jsonschema.validate(new,
                        servers_248.show_server_diagnostics['response_body'])
    assert (new['state'], new['num_cpus'], new['num_disks']) == (
        'running', 2, 1)
    assert new['hypervisor'] == 'fake'
    # The owner may not look (administrators only, as in Nova).
    status, _, body = deploy.api.get(url)
    assert status in (403, 404), body

    moves._action(deploy, uuid, {'os-stop': None})
    moves._wait(deploy, uuid, 'SHUTOFF')
    status, _, body = deploy.admin_api.get(url, **_at('2.48'))
    assert status == 409
    assert 'power_state shutdown' in body['conflictingRequest']['message']
    moves._delete(deploy, uuid)


# -- hypervisor uptime --------------------------------------------------------

def test_hypervisor_uptime_comes_from_the_compute(deploy):
    status, _, body = deploy.admin_api.get('/os-hypervisors')
    [node] = body['hypervisors']
    url = '/os-hypervisors/%s/uptime' % node['id']
    status, _, body = deploy.admin_api.get(url)
    assert status == 200, body
    jsonschema.validate(body,
                        hypervisors_21.get_hypervisor_uptime['response_body'])
    assert body['hypervisor']['hypervisor_hostname'] == 'c1-n0'
    assert UPTIME_LINE.match(body['hypervisor']['uptime']), body
    assert deploy.admin_api.get('/os-hypervisors/999999/uptime')[0] == 404

    def force_down(down):
        status, _, body = deploy.admin_api.put(
            '/os-services/force-down', {'host': 'c1',
                                        'binary': 'nova-compute',
                                        'forced_down': down}, **_at('2.11'))
        assert status == 200, body
    force_down(True)
    try:
        status, _, body = deploy.admin_api.get(url)
        assert status == 400
        assert 'c1 is down' in body['badRequest']['message']
    finally:
        force_down(False)
    assert deploy.admin_api.get(url)[0] == 200


# -- createBackup -------------------------------------------------------------

def _backups(deploy, uuid, backup_type):
    status, _, body = deploy.admin_api.get('/images/detail')
    assert status == 200, body
    return [i for i in body['images']
            if i['metadata'].get('instance_uuid') == uuid
            and i['metadata'].get('image_type') == 'backup'
            and i['metadata'].get('backup_type') == backup_type]


def _backup(deploy, uuid, name, rotation, backup_type='daily',
            version='2.45'):
    status, headers, body = deploy.admin_api.post(
        '/servers/%s/action' % uuid, {'createBackup': {
            'name': name, 'backup_type': backup_type,
            'rotation': rotation}}, **_at(version))
    assert status == 202, body
    _wait_task_done(deploy, uuid)
    return headers, body


def test_backups_rotate_oldest_first_per_type(deploy):
    uuid = _boot(deploy)
    ids = [_backup(deploy, uuid, 'b%d' % n, 2)[1]['image_id']
           for n in range(3)]
    deployment.wait_for(
        lambda: len(_backups(deploy, uuid, 'daily')) == 2, timeout=30,
        message='rotation to 2')
    kept = _backups(deploy, uuid, 'daily')
    assert sorted(i['id'] for i in kept) == sorted(ids[1:])
    assert {i['status'] for i in kept} == {'ACTIVE'}
    # Another type is another rotation.
    headers, body = _backup(deploy, uuid, 'w', 1, backup_type='weekly',
                            version='2.44')
    assert body is None or body == {}
    assert headers['Location'].rsplit('/', 1)[1] in [
        i['id'] for i in _backups(deploy, uuid, 'weekly')]
    assert len(_backups(deploy, uuid, 'daily')) == 2
    # Rotation 0: every daily backup goes, the new one too (no Location).
    headers, _body = _backup(deploy, uuid, 'none', 0, version='2.44')
    assert 'Location' not in headers
    deployment.wait_for(lambda: _backups(deploy, uuid, 'daily') == [],
                        timeout=30, message='rotation to 0')
    assert len(_backups(deploy, uuid, 'weekly')) == 1
    assert moves._server(deploy, uuid)['status'] == 'ACTIVE'
    moves._delete(deploy, uuid)


def test_backup_bad_input_and_wrong_state(deploy):
    uuid = _boot(deploy)
    action = '/servers/%s/action' % uuid
    status, _, body = deploy.admin_api.post(action, {'createBackup': {
        'name': 'b', 'backup_type': 'daily', 'rotation': -1}})
    assert status == 400 and 'rotation' in body['badRequest']['message']
    moves._action(deploy, uuid, {'os-resetState': {'state': 'error'}})
    status, _, body = deploy.admin_api.post(action, {'createBackup': {
        'name': 'b', 'backup_type': 'daily', 'rotation': 1}})
    assert status == 409
    assert ("Cannot 'createBackup' instance %s while it is in vm_state "
            "error" % uuid) in body['conflictingRequest']['message']
    assert _backups(deploy, uuid, 'daily') == []
    moves._action(deploy, uuid, {'os-resetState': {'state': 'active'}})
    moves._delete(deploy, uuid)


# -- task-status filters ------------------------------------------------------

def _set_states(deploy, uuid, vm_state, task_state):
    engine = sa.create_engine(deploy.database.url)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(
                'UPDATE instances SET vm_state = :v, task_state = :t '
                'WHERE uuid = :u'), {'v': vm_state, 't': task_state,
                                     'u': uuid})
    finally:
        engine.dispose()


def test_status_filters_find_servers_by_task(deploy):
    """The list query itself honours the task statuses (set straight in
    the database, as a server caught mid-task would be)."""
    states = {'reboot': ('active', 'rebooting'),
              'hard': ('active', 'rebooting_hard'),
              'resize': ('stopped', 'resize_prep'),
              'verify': ('resized', None),
              'plain': ('active', None)}
    uuids = {name: _boot(deploy, name) for name in states}
    try:
        for name, (vm_state, task_state) in states.items():
            _set_states(deploy, uuids[name], vm_state, task_state)

        def listed(query):
            status, _, body = deploy.admin_api.get('/servers/detail?' +
                                                   query)
            assert status == 200, body
            return {s['name']: s['status'] for s in body['servers']
                    if s['id'] in uuids.values()}
        assert listed('status=REBOOT') == {'reboot': 'REBOOT'}
        assert listed('status=HARD_REBOOT&status=RESIZE') == {
            'hard': 'HARD_REBOOT', 'resize': 'RESIZE'}
        assert listed('status=VERIFY_RESIZE') == {'verify': 'VERIFY_RESIZE'}
        assert set(listed('status=ACTIVE')) == {'reboot', 'hard', 'plain'}
    finally:
        for uuid in uuids.values():
            _set_states(deploy, uuid, 'active', None)
            moves._delete(deploy, uuid)
