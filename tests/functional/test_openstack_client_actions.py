"""The stock ``openstack`` client against the daemons (RabbitMQ,
PostgreSQL): server create, reboot, stop, start, lock, set --name,
keypair create and server event list, as a user would type them."""

import http.server
import json
import os
import sys
import threading

import pytest

from tests.functional import conftest
from tests.functional import deployment
from tests.functional import image_service

OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')
FLAVOR = {'flavor': {'name': 'small', 'id': 'small', 'ram': 512,
                     'vcpus': 1, 'disk': 1}}

pytestmark = pytest.mark.skipif(
    not os.path.exists(OPENSTACK),
    reason='python-openstackclient is not installed (test-requirements)')


class _IdentityVersion(http.server.BaseHTTPRequestHandler):
    """Answers keystone's v3 version document and nothing else."""

    def do_GET(self):
        base = 'http://%s:%d/v3/' % self.server.server_address
        body = json.dumps({'version': {
            'id': 'v3.14', 'status': 'stable',
            'links': [{'rel': 'self', 'href': base}]}}).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope='module')
def identity():
    """Key pair commands check that identity is v3 before they run (they
    call it only for --user). There is no keystone: this stub serves the
    version document the check reads. Returns its v3 URL."""
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                             _IdentityVersion)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield 'http://127.0.0.1:%d/v3' % server.server_address[1]
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    with conftest.deployed(
        module_tmp / 'postgresql', request, backend='postgresql',
        computes={'compute1': {'node_count': 1}}) as d:
        yield d


@pytest.fixture(scope='module')
def images(deploy):
    """A Glance stand-in for ``server create --image`` (see
    image_service); the client finds it through OS_IMAGE_ENDPOINT_OVERRIDE
    as there is no catalog."""
    service = image_service.ImageService(
        'http://127.0.0.1:%d/v2.1' % deploy.port).start()
    yield service
    service.stop()


def _openstack(deploy, identity, *args, images=None):
    """Run the openstack CLI as the administrator; parsed JSON output
    (``-f json``) or the text."""
    argv = [OPENSTACK, '--os-auth-type', 'admin_token', '--os-token',
            'admin:admin', '--os-endpoint',
            'http://127.0.0.1:%d/v2.1' % deploy.port, *args]
    env = {k: v for k, v in os.environ.items()
           if not k.startswith('OS_')}
    # See the identity fixture.
    env['OS_IDENTITY_ENDPOINT_OVERRIDE'] = identity
    env['OS_IDENTITY_API_VERSION'] = '3'
    if images is not None:
        env['OS_IMAGE_ENDPOINT_OVERRIDE'] = images.url
    # In this process (tests/functional/osc.py): the same shell as the
    # console script, without seconds of imports per command.
    from tests.functional import osc
    code, out, err = osc.run(argv[1:], env)
    assert code == 0, (args, out, err)
    if '-f' in args and 'json' in args:
        return json.loads(out)
    return out


def _wait(deploy, uuid, status):
    def reached():
        _, _, body = deploy.admin_api.get('/servers/%s' % uuid)
        server = body['server']
        return (server['status'] == status
                and server['OS-EXT-STS:task_state'] is None)
    deployment.wait_for(reached, timeout=60, message='%s %s' % (uuid,
                                                               status))


def test_the_stock_client_drives_server_actions(deploy, identity):
    def cli(*args):
        return _openstack(deploy, identity, *args)

    image = deploy.register_image()
    assert deploy.admin_api.post('/flavors', FLAVOR)[0] == 200
    status, _, body = deploy.admin_api.post('/servers', {'server': {
        'name': 'cli', 'imageRef': image, 'flavorRef': 'small'}})
    assert status == 202, body
    uuid = body['server']['id']
    _wait(deploy, uuid, 'ACTIVE')

    cli('server', 'reboot', uuid)
    _wait(deploy, uuid, 'ACTIVE')
    cli('server', 'stop', uuid)
    _wait(deploy, uuid, 'SHUTOFF')
    cli('server', 'start', uuid)
    _wait(deploy, uuid, 'ACTIVE')
    cli('server', 'lock', uuid)
    cli('server', 'set', '--name', 'renamed', uuid)
    shown = cli('server', 'show', uuid, '-f', 'json')
    assert shown['name'] == 'renamed'
    assert deploy.sql('SELECT locked FROM instances WHERE uuid = :u',
                      u=uuid)[0].locked is True

    created = cli('keypair', 'create', 'cli-key')
    assert 'PRIVATE KEY' in created
    listed = cli('keypair', 'list', '-f', 'json')
    assert [k['Name'] for k in listed] == ['cli-key']

    events = cli('server', 'event', 'list', uuid, '-f', 'json')
    assert [e['Action'] for e in events] == [
        'update', 'lock', 'start', 'stop', 'reboot', 'create']
    assert all(e['Request ID'].startswith('req-') for e in events)


def test_the_stock_client_creates_a_server(deploy, identity, images):
    """``openstack server create`` without a network: the client asks for
    the newest version it knows and, from 2.37, sends ``networks: auto``
    (nova_lite boots the server without ports)."""
    image = deploy.register_image('create-image')
    if deploy.admin_api.get('/flavors/small')[0] == 404:
        assert deploy.admin_api.post('/flavors', FLAVOR)[0] == 200
    server = _openstack(deploy, identity, 'server', 'create', '--wait',
                        '--flavor', 'small', '--image', image, 'cli-made',
                        '-f', 'json', images=images)
    assert server['status'] == 'ACTIVE', server
    assert ('/v2/images/%s' % image, 200) in images.served, images.served
    actions = _openstack(deploy, identity, 'server', 'event', 'list',
                         server['id'], '-f', 'json')
    assert [e['Action'] for e in actions] == ['create']
