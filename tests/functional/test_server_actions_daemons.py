"""Server actions, for real: the daemons on RabbitMQ and PostgreSQL walk
a server through every action over HTTP, with the instance actions and
events recorded, a failing operation, and a compute killed mid-action
whose server the conductor frees."""

import pytest

from tests.functional import conftest
from tests.functional import deployment

# compute1 reboots slowly (REBOOT can be seen) and fails every pause on
# its node 1; compute2 suspends for a long time (it is killed meanwhile).
COMPUTES = {
    'compute1': {'node_count': 2, 'operation_delays': 'reboot:1',
                 'fail_operations': 'pause:1'},
    'compute2': {'node_count': 1, 'operation_delays': 'suspend:60'},
}
FLAVOR = {'flavor': {'name': 'small', 'id': 'small', 'ram': 512,
                     'vcpus': 1, 'disk': 1}}


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    with conftest.deployed(
        module_tmp / 'postgresql', request, backend='postgresql',
        computes=COMPUTES,
        conf={'conductor': {'build_timeout_check_interval': 1,
                            'task_timeout': 5}}) as d:
        yield d


@pytest.fixture(scope='module')
def image(deploy):
    status, _, body = deploy.admin_api.post('/flavors', FLAVOR)
    assert status == 200, body
    return deploy.register_image()


def _boot(deploy, image, name, node, **extra):
    server = dict({'name': name, 'imageRef': image, 'flavorRef': 'small',
                   'availability_zone': 'nova:%s' % node.split('-')[0] +
                   ':' + node}, **extra)
    # The admin forces the node; the server belongs to the admin project.
    status, _, body = deploy.admin_api.post('/servers', {'server': server})
    assert status == 202, body
    uuid = body['server']['id']
    _wait_status(deploy, uuid, 'ACTIVE')
    return uuid


def _server(deploy, uuid):
    status, _, body = deploy.admin_api.get('/servers/%s' % uuid)
    assert status == 200, body
    return body['server']


def _wait_status(deploy, uuid, status, task_state=None, timeout=60):
    def reached():
        server = _server(deploy, uuid)
        return (server['status'] == status and
                server['OS-EXT-STS:task_state'] == task_state and server)
    return deployment.wait_for(reached, timeout=timeout,
                               message='%s %s' % (uuid, status))


def _act(deploy, uuid, body, client=None):
    client = client or deploy.admin_api
    return client.post('/servers/%s/action' % uuid, body)


# (action body, status while it runs or None, status once done)
WALK = [
    ({'reboot': {'type': 'SOFT'}}, 'REBOOT', 'ACTIVE'),
    ({'os-stop': None}, None, 'SHUTOFF'),
    ({'os-start': None}, None, 'ACTIVE'),
    ({'suspend': None}, None, 'SUSPENDED'),
    ({'resume': None}, None, 'ACTIVE'),
    ({'pause': None}, None, 'PAUSED'),
    ({'unpause': None}, None, 'ACTIVE'),
    ({'reboot': {'type': 'HARD'}}, 'HARD_REBOOT', 'ACTIVE'),
]


def test_walk_a_server_through_every_action(deploy, image):
    uuid = _boot(deploy, image, 'walker', 'compute1-n0')
    request_ids = []
    for body, running, done in WALK:
        status, headers, reply = _act(deploy, uuid, body)
        assert status == 202 and reply is None, (body, reply)
        request_ids.append(headers['x-openstack-request-id'])
        if running:
            server = _server(deploy, uuid)
            assert server['status'] in (running, done), server
        _wait_status(deploy, uuid, done)
    # Wrong state: Nova's 409.
    status, _, reply = _act(deploy, uuid, {'os-start': None})
    assert status == 409
    assert reply['conflictingRequest']['message'] == (
        "Cannot 'start' instance %s while it is in vm_state active" % uuid)
    status, _, reply = _act(deploy, uuid, {'levitate': None})
    assert status == 400 and 'levitate' in reply['badRequest']['message']

    status, _, body = deploy.admin_api.get(
        '/servers/%s/os-instance-actions' % uuid)
    actions = body['instanceActions']
    assert [a['action'] for a in actions][:len(WALK)] == [
        'reboot', 'unpause', 'pause', 'resume', 'suspend', 'start', 'stop',
        'reboot']
    assert {a['request_id'] for a in actions} >= set(request_ids)
    status, _, body = deploy.admin_api.get(
        '/servers/%s/os-instance-actions/%s' % (uuid, request_ids[1]))
    [event] = body['instanceAction']['events']
    assert (event['event'], event['result']) == (
        'compute_stop_instance', 'Success')
    # The API shows an event's host only from 2.62 (as Nova).
    assert 'host' not in event
    [row] = deploy.sql(
        'SELECT e.host FROM instance_actions_events e JOIN '
        'instance_actions a ON e.action_id = a.id WHERE a.request_id = :r',
        r=request_ids[1])
    assert row.host == 'compute1'


def test_trigger_crash_dump_reaches_the_compute(deploy, image):
    """2.17: the API casts (compute RPC 1.6), the compute's driver takes
    the NMI and the event says Success; the server stays ACTIVE."""
    uuid = _boot(deploy, image, 'dumper', 'compute1-n0')
    v217 = {'OpenStack-API-Version': 'compute 2.17'}
    status, _, reply = deploy.admin_api.post(
        '/servers/%s/action' % uuid, {'trigger_crash_dump': None},
        headers=v217)
    assert status == 202 and reply is None, reply

    def dumped():
        status, _, body = deploy.admin_api.get(
            '/servers/%s/os-instance-actions' % uuid)
        [action] = [a for a in body['instanceActions']
                    if a['action'] == 'trigger_crash_dump']
        status, _, body = deploy.admin_api.get(
            '/servers/%s/os-instance-actions/%s'
            % (uuid, action['request_id']))
        events = body['instanceAction']['events']
        return [(e['event'], e['result']) for e in events
                if e['result']] or None
    assert deployment.wait_for(dumped, timeout=30) == [
        ('compute_trigger_crash_dump', 'Success')]
    assert _server(deploy, uuid)['status'] == 'ACTIVE'
    status, _, reply = deploy.admin_api.post(
        '/servers/%s/action' % uuid, {'trigger_crash_dump': None},
        headers={'OpenStack-API-Version': 'compute 2.16'})
    assert status == 400


def test_actions_of_a_deleted_server_from_2_21(deploy, image):
    uuid = _boot(deploy, image, 'gone', 'compute1-n0')
    assert deploy.admin_api.delete('/servers/%s' % uuid)[0] == 204

    def deleted():
        return deploy.admin_api.get('/servers/%s' % uuid)[0] == 404
    deployment.wait_for(deleted, timeout=30)
    path = '/servers/%s/os-instance-actions' % uuid
    status, _, _body = deploy.admin_api.get(
        path, headers={'OpenStack-API-Version': 'compute 2.20'})
    assert status == 404
    status, _, body = deploy.admin_api.get(
        path, headers={'OpenStack-API-Version': 'compute 2.21'})
    assert status == 200, body
    assert 'create' in [a['action'] for a in body['instanceActions']]


def test_lock_rename_metadata_and_key_pairs(deploy, image):
    status, _, body = deploy.admin_api.post(
        '/os-keypairs', {'keypair': {'name': 'k1'}})
    assert status == 200 and 'private_key' in body['keypair'], body
    status, _, body = deploy.admin_api.post('/servers', {'server': {
        'name': 'x', 'imageRef': image, 'flavorRef': 'small',
        'key_name': 'NOPE'}})
    assert status == 400 and 'NOPE' in body['badRequest']['message']
    uuid = _boot(deploy, image, 'locked', 'compute1-n0', key_name='k1')
    assert _server(deploy, uuid)['key_name'] == 'k1'

    status, _, _ = _act(deploy, uuid,
                        {'lock': {'locked_reason': 'maintenance'}})
    assert status == 202
    rows = deploy.sql('SELECT locked, locked_by, locked_reason FROM '
                      'instances WHERE uuid = :u', u=uuid)
    assert tuple(rows[0]) == (True, 'owner', 'maintenance')
    # The admin locked their own server (an owner's lock); as an
    # administrator they may still act on it.
    assert _act(deploy, uuid, {'os-stop': None})[0] == 202
    _wait_status(deploy, uuid, 'SHUTOFF')
    assert _act(deploy, uuid, {'unlock': None})[0] == 202

    status, _, body = deploy.admin_api.put(
        '/servers/%s' % uuid, {'server': {'name': 'renamed',
                                          'description': 'db'}},
        headers={'OpenStack-API-Version': 'compute 2.19'})
    assert status == 200 and body['server']['name'] == 'renamed'
    assert body['server']['description'] == 'db'
    status, _, body = deploy.admin_api.post(
        '/servers/%s/metadata' % uuid, {'metadata': {'a': '1'}})
    assert status == 200 and body == {'metadata': {'a': '1'}}
    status, _, body = deploy.admin_api.put(
        '/servers/%s/metadata/b' % uuid, {'meta': {'b': '2'}})
    assert status == 200
    assert deploy.admin_api.delete(
        '/servers/%s/metadata/a' % uuid)[0] == 204
    shown = _server(deploy, uuid)
    assert (shown['name'], shown['metadata']) == ('renamed', {'b': '2'})
    rows = deploy.sql('SELECT display_name, description, locked FROM '
                      'instances WHERE uuid = :u', u=uuid)
    assert tuple(rows[0]) == ('renamed', 'db', False)


def test_a_failing_operation_leaves_a_fault_and_an_error_event(deploy,
                                                               image):
    uuid = _boot(deploy, image, 'fragile', 'compute1-n1')
    status, headers, _ = _act(deploy, uuid, {'pause': None})
    assert status == 202
    request_id = headers['x-openstack-request-id']
    _wait_status(deploy, uuid, 'ACTIVE')
    body = deployment.wait_for(
        lambda: (lambda b: b['instanceAction']['events'] and
                 b['instanceAction']['events'][0]['finish_time'] and b)(
            deploy.admin_api.get('/servers/%s/os-instance-actions/%s'
                                 % (uuid, request_id))[2]),
        message='pause event finished')
    action = body['instanceAction']
    assert action['message'] == 'Error'
    assert action['events'][0]['result'] == 'Error'
    assert 'fail_operations' in action['events'][0]['traceback']
    faults = deploy.sql('SELECT message FROM instance_faults WHERE '
                        'instance_uuid = :u', u=uuid)
    assert any('fail_operations' in f.message for f in faults)


def test_a_compute_killed_mid_action_does_not_strand_the_server(deploy,
                                                                image):
    uuid = _boot(deploy, image, 'orphan', 'compute2-n0')
    assert _act(deploy, uuid, {'suspend': None})[0] == 202
    _wait_status(deploy, uuid, 'ACTIVE', task_state='suspending')
    deploy.kill(deploy.daemon('compute2'))
    # [conductor] task_timeout = 5: the conductor clears the task.
    server = _wait_status(deploy, uuid, 'ACTIVE', timeout=60)
    assert server['OS-EXT-STS:vm_state'] == 'active'
    faults = deploy.sql('SELECT message FROM instance_faults WHERE '
                        'instance_uuid = :u', u=uuid)
    assert any('suspending' in f.message for f in faults), faults
