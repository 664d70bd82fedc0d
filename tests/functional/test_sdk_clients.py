"""python-novaclient and openstacksdk, as a user's scripts use them,
against the daemons (RabbitMQ, PostgreSQL), each at the newest
microversion it and nova_lite share: a server's life (create, actions,
resize and confirm, its actions and migrations), key pairs, flavors,
quotas, limits, zones, services and hypervisors.

No Keystone here: both authenticate with a token and the endpoint
(keystoneauth's token_endpoint plugin), as with ``--os-auth-type
admin_token``."""

import pytest

from tests.functional import conftest
from tests.functional import deployment

novaclient_client = pytest.importorskip('novaclient.client')
openstack_connection = pytest.importorskip('openstack.connection')
token_endpoint = pytest.importorskip('keystoneauth1.token_endpoint')
ks_session = pytest.importorskip('keystoneauth1.session')

PUBLIC_KEY = ('ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDx8nkQv/zgGgB4rMYmIf+6'
              'A4l6Rr+o/6lHTXV5R3ky6mcMpaUvzOO8oNTJ3SC9Nx3fDVWKw1sF5Q6C7i6'
              'MCcAmHFuCaUnZ1LYNl7fDfFvV4TdNr1pbSX4hk0R2Gme8p1yn7SPWW8Ug7Xp'
              'JX8tWqAO7pEOVuBS1cMODV0b2XtGYoQ== test@nova-lite')


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    with conftest.deployed(
        module_tmp / 'postgresql', request, backend='postgresql',
        computes={'compute1': {'node_count': 1},
                  'compute2': {'node_count': 1}}) as d:
        d.image_id = d.register_image()
        conftest.add_flavors(d, {
            'small': {'ram': 256, 'vcpus': 1, 'disk': 1},
            'large': {'ram': 512, 'vcpus': 2, 'disk': 1}})
        yield d


def _session(deploy, token='admin:admin'):
    auth = token_endpoint.Token('http://127.0.0.1:%d/v2.1' % deploy.port,
                                token)
    return ks_session.Session(auth=auth)


@pytest.fixture(scope='module')
def nova(deploy):
    """novaclient at its newest microversion that nova_lite speaks."""
    import novaclient
    from novaclient import api_versions
    version = api_versions.APIVersion(
        '2.%d' % min(novaclient.API_MAX_VERSION.ver_minor, 100))
    return novaclient_client.Client(version, session=_session(deploy))


@pytest.fixture(scope='module')
def sdk(deploy):
    return openstack_connection.Connection(session=_session(deploy))


def _wait(deploy, uuid, status):
    def reached():
        _, _, body = deploy.admin_api.get('/servers/%s' % uuid)
        server = body['server']
        return (server['status'] == status
                and server['OS-EXT-STS:task_state'] is None)
    deployment.wait_for(reached, timeout=60,
                        message='%s %s' % (uuid, status))


def test_novaclient_drives_a_servers_life(deploy, nova):
    assert nova.api_version.ver_minor >= 90
    assert {f.name for f in nova.flavors.list()} >= {'small', 'large'}
    nova.keypairs.create('nc-key', public_key=PUBLIC_KEY)
    assert [k.name for k in nova.keypairs.list()] == ['nc-key']
    server = nova.servers.create('nc-vm', deploy.image_id, 'small',
                                 key_name='nc-key', nics='none')
    _wait(deploy, server.id, 'ACTIVE')
    server = nova.servers.get(server.id)
    assert (server.name, server.key_name) == ('nc-vm', 'nc-key')
    nova.servers.reboot(server, reboot_type='HARD')
    _wait(deploy, server.id, 'ACTIVE')
    nova.servers.stop(server)
    _wait(deploy, server.id, 'SHUTOFF')
    nova.servers.start(server)
    _wait(deploy, server.id, 'ACTIVE')
    nova.servers.lock(server, reason='maintenance')
    assert nova.servers.get(server.id).locked_reason == 'maintenance'
    nova.servers.unlock(server)
    nova.servers.resize(server, 'large')
    _wait(deploy, server.id, 'VERIFY_RESIZE')
    nova.servers.confirm_resize(server)
    _wait(deploy, server.id, 'ACTIVE')
    assert nova.servers.get(server.id).flavor['original_name'] == 'large'
    actions = [a.action for a in nova.instance_action.list(server)]
    for action in ('create', 'reboot', 'stop', 'start', 'resize',
                   'confirmResize'):
        assert action in actions
    migrations = nova.migrations.list(instance_uuid=server.id)
    assert [m.status for m in migrations] == ['confirmed']
    assert [s.name for s in nova.servers.list()] == ['nc-vm']
    nova.servers.delete(server)
    deployment.wait_for(lambda: not nova.servers.list(), timeout=60,
                        message='the server deleted')
    nova.keypairs.delete('nc-key')


def test_novaclient_reads_the_administrators_views(nova):
    computes = nova.services.list(binary='nova-compute')
    assert {s.host for s in computes} == {'compute1', 'compute2'}
    assert len(nova.hypervisors.list()) == 2
    assert [z.zoneName for z in nova.availability_zones.list(
        detailed=False)] == ['nova']
    quotas = nova.quotas.get('admin')
    assert quotas.id == 'admin' and quotas.metadata_items > 0
    absolute = {a.name: a.value for a in nova.limits.get().absolute}
    assert 'maxTotalInstances' in absolute


def test_openstacksdk_drives_a_server(deploy, sdk):
    flavor = sdk.compute.find_flavor('small')
    server = sdk.compute.create_server(
        name='sdk-vm', image_id=deploy.image_id, flavor_id=flavor.id,
        networks='none')
    server = sdk.compute.wait_for_server(server, status='ACTIVE', wait=60)
    assert server.name == 'sdk-vm'
    sdk.compute.stop_server(server)
    sdk.compute.wait_for_server(server, status='SHUTOFF', wait=60)
    sdk.compute.start_server(server)
    sdk.compute.wait_for_server(server, status='ACTIVE', wait=60)
    sdk.compute.set_server_metadata(server, purpose='test')
    assert sdk.compute.get_server(server.id).metadata == {'purpose': 'test'}
    assert [s.name for s in sdk.compute.servers()] == ['sdk-vm']
    assert {s.binary for s in sdk.compute.services()} >= {'nova-compute'}
    assert len(list(sdk.compute.hypervisors())) == 2
    sdk.compute.delete_server(server)
    sdk.compute.wait_for_delete(server, wait=60)
