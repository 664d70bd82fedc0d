"""nova_lite behind a real Keystone (RabbitMQ, PostgreSQL, Keystone on
SQLite): ``[api] auth_strategy = keystone`` with keystonemiddleware
validating every token against it, and a real Glance found through
Keystone's catalog.

The cloud: Keystone's bootstrap administrator (project admin), a service
user ``nova`` (role service) for keystonemiddleware, project ``demo`` with
a member (alice) and a reader (rita), project ``other`` with a member
(otto); Keystone's implied roles give a member the reader role too. The
catalog holds the compute API and a real Glance (glance_fixture) as the
``image`` service, so ``openstack`` finds both from nothing but a user
name, a password and Keystone's URL. nova_lite runs ``[image] backend =
glance`` with no ``[glance] endpoint_override``: it finds Glance in the
catalog keystonemiddleware passes on with the caller's token, and sends
that token along. Glance runs its unauthenticated pipeline: it does not
validate the tokens it is sent, so what is shown here is that nova_lite
and the client find Glance through the catalog, not Glance's own checks.
"""

import concurrent.futures
import datetime
import json
import os
import subprocess
import sys
import time

import pytest

from tests.functional import conftest
from tests.functional import glance_fixture
from tests.functional import identity

OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')
PASSWORD = 'secret-pw'
NOVA_PASSWORD = 'nova-service-pw'
# Seconds an application credential's token lives (see
# Cloud._short_lived_token).
SHORT_LIFE = 20
FLAVOR = {'flavor': {'name': 'tiny', 'id': 'tiny', 'ram': 256, 'vcpus': 1,
                     'disk': 1}}
# The module's image, made in Glance; nova_lite's registry has none.
IMAGE_NAME = 'cirros-in-glance'
MISSING = '00000000-1111-2222-3333-444444444444'

pytestmark = pytest.mark.skipif(
    not (os.path.exists(identity.KEYSTONE_MANAGE)
         and os.path.exists(OPENSTACK)),
    reason='keystone and python-openstackclient are test requirements')


def _authtoken_conf(ks):
    """nova_lite's [keystone_authtoken], as an operator writes it."""
    return {
        'www_authenticate_uri': ks.url,
        'auth_url': ks.url,
        'auth_type': 'password',
        'username': 'nova',
        'password': NOVA_PASSWORD,
        'project_name': 'service',
        'user_domain_name': 'Default',
        'project_domain_name': 'Default',
        # Validate every request against Keystone: a revoked token is
        # refused at once (the default caches a validation for 300 s).
        'token_cache_time': -1,
    }


class Cloud:
    """The running Keystone and nova_lite, and the users' tokens."""

    def __init__(self, ks, deploy, glance):
        self.ks = ks
        self.deploy = deploy
        self.glance = glance
        self.projects = {}
        self.users = {}
        self.tokens = {}

    def populate(self):
        self.ks.register_service(
            'compute', 'nova', 'http://127.0.0.1:%d/v2.1' % self.deploy.port)
        # Glance's root (no /v2): nova_lite and the client add the version.
        self.ks.register_service('image', 'glance', self.glance.url)
        service = self.ks.create_project('service')
        self.ks.create_user('nova', NOVA_PASSWORD, service, 'service')
        for name in ('demo', 'other'):
            self.projects[name] = self.ks.create_project(name)
        for user, project, role in (('alice', 'demo', 'member'),
                                    ('rita', 'demo', 'reader'),
                                    ('otto', 'other', 'member')):
            self.users[user] = self.ks.create_user(
                user, PASSWORD, self.projects[project], role)
            self.tokens[user] = self.ks.token(user, PASSWORD, project)
        self.tokens['admin'] = self.ks.admin_token()
        self.short_lived = self._short_lived_token()

    def _short_lived_token(self):
        """A token of alice's that expires ``SHORT_LIFE`` seconds from
        now, accepted by nova_lite meanwhile; (token, its expiry).

        Keystone caps a token's life at its application credential's, so
        an application credential that expires soon gives such a token.
        Made here, its life runs out while the other tests run, and
        test_an_expired_token_is_refused (the module's last) seldom waits.
        """
        expires = (datetime.datetime.now(datetime.timezone.utc)
                   + datetime.timedelta(seconds=SHORT_LIFE))
        cred, secret = self.ks.application_credential(
            self.users['alice'], self.tokens['alice'], 'short-lived',
            expires.strftime('%Y-%m-%dT%H:%M:%S'))
        token, body = self.ks.application_credential_token(cred, secret)
        expiry = datetime.datetime.fromisoformat(
            body['token']['expires_at'].replace('Z', '+00:00'))
        assert expiry <= expires, body['token']['expires_at']
        status, _, body = self.deploy.api.as_user(token).get('/servers')
        assert status == 200, body
        return token, expiry

    def api(self, user):
        return self.deploy.api.as_user(self.tokens[user])


@pytest.fixture(scope='module')
def cloud(request, module_tmp):
    ks = identity.Keystone(module_tmp / 'keystone')
    glance = glance_fixture.GlanceServer(module_tmp / 'glance')
    conf = {'api': {'auth_strategy': 'keystone'},
            'keystone_authtoken': _authtoken_conf(ks),
            # No [glance] endpoint_override: Glance comes from the catalog
            # of the caller's token.
            'image': {'backend': 'glance'}}
    # Keystone's bootstrap (three keystone-manage runs), Glance's db_sync
    # and the daemons' start take about as long each: do them side by
    # side.
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        started = [pool.submit(ks.start), pool.submit(glance.start)]
        try:
            deploy = conftest.start_deployment(
                module_tmp / 'nova_lite', request, backend='postgresql',
                computes={'compute1': {'node_count': 2}}, conf=conf)
        except Exception:
            concurrent.futures.wait(started)
            ks.kill()
            glance.stop()
            raise
        try:
            for future in started:
                future.result()
        except Exception:
            print(ks.log())
            print(glance.tail())
            ks.kill()
            glance.stop()
            deploy.stop()
            deploy.cleanup(wait=False)
            raise
    c = Cloud(ks, deploy, glance)
    try:
        c.populate()
        yield c
    finally:
        codes = deploy.stop()
        codes['keystone'] = ks.stop()
        glance.stop()
        logs = deploy.logs() + '\n==== keystone ====\n' + ks.log()
        deploy.cleanup(wait=False)
    assert set(codes.values()) == {0}, 'unclean exit %s\n%s' % (codes, logs)


@pytest.fixture(scope='module')
def image(cloud):
    """A public raw image with data, made in Glance itself; its id."""
    status, _, body = cloud.glance.api.post('/v2/images', {
        'name': IMAGE_NAME, 'disk_format': 'raw', 'container_format': 'bare',
        'visibility': 'public'})
    assert status == 201, body
    assert cloud.glance.upload(body['id'], b'\0' * 1024) == 204
    return body['id']


def _boot(api, image, name):
    status, _, body = api.post('/servers', {'server': {
        'name': name, 'imageRef': image, 'flavorRef': 'tiny'}})
    return status, body


@pytest.fixture(scope='module')
def flavor(cloud):
    status, _, body = cloud.api('admin').post('/flavors', FLAVOR)
    assert status == 200, body
    return 'tiny'


def test_tokens_are_validated_by_keystone(cloud):
    anonymous = cloud.deploy.api.as_user(None)
    status, headers, _ = anonymous.get('/servers')
    assert status == 401
    # keystonemiddleware tells the client where to authenticate.
    assert cloud.ks.url in headers['WWW-Authenticate']
    status, _, _ = cloud.deploy.api.as_user('not-a-token').get('/servers')
    assert status == 401
    status, _, body = cloud.api('alice').get('/servers')
    assert (status, body) == (200, {'servers': []})


def test_the_context_is_the_tokens_user_and_project(cloud, image, flavor):
    status, body = _boot(cloud.api('alice'), image, 'mine')
    assert status == 202, body
    uuid = body['server']['id']
    rows = cloud.deploy.sql(
        'SELECT user_id, project_id FROM instances WHERE uuid = :u', u=uuid)
    assert [tuple(r) for r in rows] == [
        (cloud.users['alice'], cloud.projects['demo'])]


def test_roles_map_to_policy(cloud, image, flavor):
    # A reader looks but does not touch.
    status, body = _boot(cloud.api('rita'), image, 'by-reader')
    assert status == 403, body
    status, body = _boot(cloud.api('alice'), image, 'by-member')
    assert status == 202, body
    mine = body['server']['id']
    status, _, body = cloud.api('rita').get('/servers/%s' % mine)
    assert status == 200, body
    status, body = _boot(cloud.api('otto'), image, 'elsewhere')
    assert status == 202, body
    theirs = body['server']['id']
    # Projects are isolated.
    assert cloud.api('otto').get('/servers/%s' % mine)[0] == 404
    _, _, body = cloud.api('alice').get('/servers')
    assert theirs not in {s['id'] for s in body['servers']}
    # Only an administrator lists every project's servers or makes
    # flavors.
    for user in ('alice', 'rita'):
        status, _, body = cloud.api(user).get('/servers?all_tenants=1')
        assert status == 403, (user, body)
    status, _, body = cloud.api('admin').get('/servers?all_tenants=1')
    assert status == 200, body
    assert {mine, theirs} <= {s['id'] for s in body['servers']}
    status, _, body = cloud.api('alice').post('/flavors', {'flavor': {
        'name': 'x', 'ram': 1, 'vcpus': 1, 'disk': 0}})
    assert status == 403, body


def test_a_revoked_token_is_refused(cloud):
    token = cloud.ks.token('alice', PASSWORD, 'demo')
    api = cloud.deploy.api.as_user(token)
    assert api.get('/servers')[0] == 200
    cloud.ks.revoke(token)
    status, _, body = api.get('/servers')
    assert status == 401, body
    # The user's other tokens still work.
    assert cloud.api('alice').get('/servers')[0] == 200


def _openstack(cloud, user, project, *args):
    """The stock client with password authentication: only Keystone's URL
    is given, the compute endpoint comes from the catalog."""
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    env.update({
        'OS_AUTH_URL': cloud.ks.url, 'OS_AUTH_TYPE': 'password',
        'OS_USERNAME': user, 'OS_PASSWORD': (
            identity.ADMIN_PASSWORD if user == 'admin' else PASSWORD),
        'OS_PROJECT_NAME': project, 'OS_USER_DOMAIN_NAME': 'Default',
        'OS_PROJECT_DOMAIN_NAME': 'Default', 'OS_IDENTITY_API_VERSION': '3',
        'OS_REGION_NAME': identity.REGION, 'OS_INTERFACE': 'public'})
    done = subprocess.run([OPENSTACK, *args, '-f', 'json'],
                          capture_output=True, text=True, timeout=180,
                          env=env)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return json.loads(done.stdout) if done.stdout.strip() else None


def test_the_stock_client_through_the_catalog(cloud, image):
    made = _openstack(cloud, 'admin', 'admin', 'flavor', 'create',
                      '--ram', '128', '--vcpus', '1', '--disk', '1',
                      'cli-flavor')
    assert made['name'] == 'cli-flavor'
    # The client resolves the image's name in the catalog's Glance; the
    # API then finds the same Glance in the catalog of alice's token.
    server = _openstack(cloud, 'alice', 'demo', 'server', 'create',
                        '--wait', '--flavor', 'cli-flavor', '--image',
                        IMAGE_NAME, 'cli-server')
    assert server['status'] == 'ACTIVE', server
    assert image in server['image'], server
    listed = _openstack(cloud, 'alice', 'demo', 'server', 'list')
    assert server['id'] in {s['ID'] for s in listed}
    # The project's own limit, set by the administrator, and its usage.
    demo = cloud.projects['demo']
    status, _, body = cloud.api('admin').put(
        '/os-quota-sets/%s' % demo, {'quota_set': {'instances': 7}})
    assert status == 200, body
    _, _, body = cloud.api('alice').get('/servers')
    quotas = _openstack(cloud, 'alice', 'demo', 'quota', 'show', '--usage')
    rows = {row['Resource']: row for row in quotas}
    assert rows['instances']['Limit'] == 7, quotas
    assert rows['instances']['In Use'] == len(body['servers']), quotas


def test_images_are_glances_in_novas_shape(cloud, image):
    """/images proxies the Glance of the catalog with the user's token."""
    status, _, body = cloud.api('alice').get('/images')
    assert status == 200, body
    [listed] = [i for i in body['images'] if i['id'] == image]
    assert listed['name'] == IMAGE_NAME
    assert listed['links'][0]['href'].endswith('/images/%s' % image)
    status, _, body = cloud.api('rita').get('/images/%s' % image)
    assert status == 200, body
    assert (body['image']['status'], body['image']['progress'],
            body['image']['OS-EXT-IMG-SIZE:size']) == ('ACTIVE', 100, 1024)


def test_boot_from_an_image_glance_lacks_is_400(cloud, flavor):
    status, body = _boot(cloud.api('alice'), MISSING, 'no-image')
    assert status == 400, body
    assert MISSING in body['badRequest']['message']


def test_an_expired_token_is_refused(cloud):
    token, expiry = cloud.short_lived
    left = (expiry - datetime.datetime.now(datetime.timezone.utc))
    time.sleep(max(left.total_seconds(), 0) + 1)
    status, _, body = cloud.deploy.api.as_user(token).get('/servers')
    assert status == 401, body
