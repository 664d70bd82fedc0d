"""A real Keystone for functional tests, on its own SQLite database.

``Keystone(workdir).start()`` writes a ``keystone.conf`` in ``workdir``,
runs ``keystone-manage db_sync``, ``fernet_setup`` and ``bootstrap`` (the
admin user, the admin project and the admin, member and reader roles with
their implications admin -> member -> reader, the identity endpoint), then
serves the public API on 127.0.0.1 at a free port
(``keystone_server.py`` on cheroot) and waits for its readiness. The
methods below call the identity API as the bootstrap administrator, as an
operator's ``openstack`` commands would::

    ks = Keystone(tmp).start()
    project = ks.create_project('demo')
    ks.create_user('alice', 'secret', project, 'member')
    token = ks.token('alice', 'secret', 'demo')
"""

import concurrent.futures
import grp
import os
import pwd
import subprocess
import sys

from tests.functional import deployment

ADMIN_PASSWORD = 'admin-secret'
REGION = 'RegionOne'
_SERVER = os.path.join(os.path.dirname(__file__), 'keystone_server.py')
KEYSTONE_MANAGE = os.path.join(deployment.BIN, 'keystone-manage')
# Keystone.request's default token: the bootstrap administrator's.
_ADMIN = object()


class Keystone:
    """Keystone on SQLite in ``workdir``; ``url`` is its /v3 endpoint."""

    def __init__(self, workdir, token_expiration=3600):
        self.workdir = str(workdir)
        self.port = deployment.free_port()
        self.token_expiration = token_expiration
        self.daemon = None
        self._admin_token = None

    @property
    def url(self):
        return 'http://127.0.0.1:%d/v3' % self.port

    def _conf(self):
        keys = os.path.join(self.workdir, 'fernet-keys')
        return deployment._ini({
            'DEFAULT': {'use_stderr': 'true', 'debug': 'false'},
            'database': {'connection': 'sqlite:///%s' % os.path.join(
                self.workdir, 'keystone.db')},
            'token': {'provider': 'fernet',
                      'expiration': self.token_expiration},
            'fernet_tokens': {'key_repository': keys},
            # Receipts (multi-factor authentication) are never issued
            # here; this only keeps Keystone from looking under /etc.
            'fernet_receipts': {'key_repository': keys},
            # bcrypt's fewest rounds: every password check costs
            # milliseconds instead of a quarter of a second.
            'identity': {'password_hash_rounds': 4},
            'cache': {'enabled': 'false'},
        })

    def _manage(self, *args):
        done = subprocess.run(
            [KEYSTONE_MANAGE, '--config-dir', self.workdir, *args],
            capture_output=True, text=True, timeout=300)
        if done.returncode:
            raise RuntimeError('keystone-manage %s failed:\n%s%s' % (
                ' '.join(args), done.stdout, done.stderr))

    def start(self):
        os.makedirs(self.workdir, exist_ok=True)
        with open(os.path.join(self.workdir, 'keystone.conf'), 'w') as f:
            f.write(self._conf())
        user = pwd.getpwuid(os.getuid()).pw_name
        group = grp.getgrgid(os.getgid()).gr_name
        # The keys and the schema do not depend on each other: make them
        # side by side (each keystone-manage run spends seconds loading).
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            keys = pool.submit(self._manage, 'fernet_setup',
                               '--keystone-user', user,
                               '--keystone-group', group)
            self._manage('db_sync')
            keys.result()
        self._manage('bootstrap', '--bootstrap-password', ADMIN_PASSWORD,
                     '--bootstrap-region-id', REGION,
                     '--bootstrap-public-url', self.url,
                     '--bootstrap-internal-url', self.url,
                     '--bootstrap-admin-url', self.url)
        self.daemon = deployment.Daemon(
            'keystone', [sys.executable, _SERVER, '--port', str(self.port)],
            self.workdir, env={'OS_KEYSTONE_CONFIG_DIR': self.workdir})
        self.daemon.start()
        self.daemon.wait_ready()
        return self

    def stop(self):
        """SIGTERM the server; its exit code."""
        return self.daemon.stop() if self.daemon else None

    def kill(self):
        if self.daemon:
            self.daemon.kill()

    def log(self):
        return self.daemon.tail(200) if self.daemon else '(not started)'

    # The identity API.

    def request(self, method, path, body=None, token=_ADMIN, headers=None):
        """Call /v3``path`` with ``token`` (the administrator's by
        default, none if None); (status, headers, parsed body)."""
        if token is _ADMIN:
            token = self.admin_token()
        client = deployment.ApiClient(self.url, token)
        return client.request(method, path, body, headers=headers)

    def _ok(self, method, path, body=None, **kw):
        status, headers, payload = self.request(method, path, body, **kw)
        if status >= 300:
            raise AssertionError('%s %s: %s %s' % (method, path, status,
                                                   payload))
        return headers, payload

    def authenticate(self, user, password, project, domain='Default'):
        """Password authentication scoped to ``project``; (token, body)."""
        body = {'auth': {
            'identity': {'methods': ['password'], 'password': {'user': {
                'name': user, 'password': password,
                'domain': {'name': domain}}}},
            'scope': {'project': {'name': project,
                                  'domain': {'name': domain}}}}}
        headers, payload = self._ok('POST', '/auth/tokens', body,
                                    token=None)
        return headers['X-Subject-Token'], payload

    def token(self, user, password, project):
        return self.authenticate(user, password, project)[0]

    def admin_token(self):
        if self._admin_token is None:
            self._admin_token = self.token('admin', ADMIN_PASSWORD, 'admin')
        return self._admin_token

    def revoke(self, token):
        """Revoke ``token`` (DELETE /v3/auth/tokens, as the admin)."""
        self._ok('DELETE', '/auth/tokens',
                 headers={'X-Subject-Token': token})

    def create_project(self, name):
        """A project in the Default domain; its id."""
        _, body = self._ok('POST', '/projects', {'project': {
            'name': name, 'domain_id': 'default'}})
        return body['project']['id']

    def role_id(self, name):
        _, body = self._ok('GET', '/roles?name=%s' % name)
        if body['roles']:
            return body['roles'][0]['id']
        _, body = self._ok('POST', '/roles', {'role': {'name': name}})
        return body['role']['id']

    def create_user(self, name, password, project_id, role):
        """A user with ``role`` on ``project_id``; the user's id."""
        _, body = self._ok('POST', '/users', {'user': {
            'name': name, 'password': password, 'domain_id': 'default'}})
        user_id = body['user']['id']
        self._ok('PUT', '/projects/%s/users/%s/roles/%s' % (
            project_id, user_id, self.role_id(role)))
        return user_id

    def register_service(self, service_type, name, url):
        """A service in the catalog with public, internal and admin
        endpoints at ``url`` in RegionOne; the service's id."""
        _, body = self._ok('POST', '/services', {'service': {
            'type': service_type, 'name': name}})
        service_id = body['service']['id']
        for interface in ('public', 'internal', 'admin'):
            self._ok('POST', '/endpoints', {'endpoint': {
                'service_id': service_id, 'interface': interface,
                'url': url, 'region_id': REGION}})
        return service_id

    def application_credential(self, user_id, token, name, expires_at):
        """An application credential of ``user_id`` (made with the user's
        own ``token``) that expires at ``expires_at`` (ISO 8601); its id
        and secret."""
        _, body = self._ok(
            'POST', '/users/%s/application_credentials' % user_id,
            {'application_credential': {'name': name,
                                        'expires_at': expires_at}},
            token=token)
        cred = body['application_credential']
        return cred['id'], cred['secret']

    def application_credential_token(self, cred_id, secret):
        """A token from an application credential; (token, body)."""
        body = {'auth': {'identity': {
            'methods': ['application_credential'],
            'application_credential': {'id': cred_id, 'secret': secret}}}}
        headers, payload = self._ok('POST', '/auth/tokens', body,
                                    token=None)
        return headers['X-Subject-Token'], payload

