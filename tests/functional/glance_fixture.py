"""A real Glance v2 API for the functional tests, on 127.0.0.1.

The ``glance`` package is a whole service (glance_store, taskflow, WSME,
castellan, ...), not a dependency of nova_lite: rather than add it to
every test environment, it lives in a virtualenv of its own, made once
and reused: ``$NOVA_LITE_TEST_GLANCE_VENV`` if set, else
``nova_lite-glance-<key>`` in ``$NOVA_LITE_TEST_GLANCE_VENV_DIR`` (tox
sets its work directory) or the temporary directory, where the key hashes
the constraints file (``$NOVA_LITE_TEST_GLANCE_CONSTRAINTS``, by default
upper-constraints.txt) and the Python version: new constraints, a new
virtualenv. It is installed with ``pip install -c <constraints> glance``
(a marker file says the install finished; a lock keeps two runs from
installing it at once). ``GlanceServer`` then syncs a SQLite
database with ``glance-manage db_sync``, stores images in files, and serves
``glance.wsgi.api`` (Glance ships no standalone server any more) with
``glance_wsgi.py``. There is no Keystone: Glance runs its
unauthenticated pipeline, in which every caller is an administrator with
no project, and the policy file lets that caller publish images.
"""

import fcntl
import hashlib
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from tests.functional import deployment

_HERE = os.path.dirname(os.path.abspath(__file__))
CONSTRAINTS = os.environ.get(
    'NOVA_LITE_TEST_GLANCE_CONSTRAINTS',
    os.path.join(_HERE, '..', '..', 'upper-constraints.txt'))
_MARKER = 'nova_lite-installed'


def _default_venv():
    key = hashlib.sha256(sys.version.encode())
    if os.path.exists(CONSTRAINTS):
        with open(CONSTRAINTS, 'rb') as constraints:
            key.update(constraints.read())
    return os.path.join(
        os.environ.get('NOVA_LITE_TEST_GLANCE_VENV_DIR',
                       tempfile.gettempdir()),
        'nova_lite-glance-%s' % key.hexdigest()[:16])


VENV = os.environ.get('NOVA_LITE_TEST_GLANCE_VENV') or _default_venv()


def glance_venv():
    """The virtualenv holding ``glance``, installed if need be."""
    marker = os.path.join(VENV, _MARKER)
    os.makedirs(os.path.dirname(VENV), exist_ok=True)
    with open(VENV + '.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(marker):
            _install()
            open(marker, 'w').close()
    return VENV


def _install():
    subprocess.run([sys.executable, '-m', 'venv', '--clear', VENV],
                   check=True)
    constraints = (['-c', CONSTRAINTS] if os.path.exists(CONSTRAINTS)
                   else [])
    subprocess.run([os.path.join(VENV, 'bin', 'pip'), 'install', '-q',
                    *constraints, 'glance'], check=True)


def _conf(workdir, port):
    paste = os.path.join(VENV, 'etc', 'glance', 'glance-api-paste.ini')
    return deployment._ini({
        'DEFAULT': {'bind_host': '127.0.0.1', 'bind_port': port,
                    'enabled_backends': 'fs:file'},
        'database': {'connection': 'sqlite:///%s' % os.path.join(
            workdir, 'glance.sqlite')},
        'glance_store': {'default_backend': 'fs'},
        'fs': {'filesystem_store_datadir': os.path.join(workdir, 'images')},
        'os_glance_staging_store': {
            'filesystem_store_datadir': os.path.join(workdir, 'staging')},
        'os_glance_tasks_store': {
            'filesystem_store_datadir': os.path.join(workdir, 'tasks')},
        'paste_deploy': {'config_file': paste},
        # The unauthenticated caller has no project and no role: only
        # the legacy (admin-context) policy defaults let it act.
        'oslo_policy': {'policy_file': os.path.join(workdir, 'policy.yaml'),
                        'enforce_new_defaults': 'false',
                        'enforce_scope': 'false'},
    })


class GlanceServer:
    """``start()``, ``url``, ``stop()``; logs in ``workdir/glance.log``."""

    def __init__(self, workdir):
        self.workdir = str(workdir)
        self.port = deployment.free_port()
        self.url = 'http://127.0.0.1:%d' % self.port
        self.log = os.path.join(self.workdir, 'glance.log')
        self.proc = None

    def start(self, timeout=120):
        venv = glance_venv()
        for sub in ('images', 'staging', 'tasks'):
            os.makedirs(os.path.join(self.workdir, sub), exist_ok=True)
        with open(os.path.join(self.workdir, 'glance-api.conf'), 'w') as f:
            f.write(_conf(self.workdir, self.port))
        with open(os.path.join(self.workdir, 'policy.yaml'), 'w') as f:
            f.write('"publicize_image": ""\n"communitize_image": ""\n')
        conf = os.path.join(self.workdir, 'glance-api.conf')
        with open(self.log, 'ab') as log:
            subprocess.run([os.path.join(venv, 'bin', 'glance-manage'),
                            '--config-file', conf, 'db_sync'], check=True,
                           stdout=log, stderr=subprocess.STDOUT)
            self.proc = subprocess.Popen(
                [os.path.join(venv, 'bin', 'python'),
                 os.path.join(_HERE, 'glance_wsgi.py'), '127.0.0.1',
                 str(self.port)],
                env=dict(os.environ, OS_GLANCE_CONFIG_DIR=self.workdir),
                stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True)
        self._wait(timeout)

    def _wait(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError('glance exited %s:\n%s'
                                   % (self.proc.returncode, self.tail()))
            try:
                with urllib.request.urlopen(self.url + '/v2/images',
                                            timeout=5):
                    return
            except (urllib.error.URLError, OSError):
                time.sleep(0.5)
        raise RuntimeError('glance not serving after %ss:\n%s'
                           % (timeout, self.tail()))

    @property
    def api(self):
        """A JSON client of Glance itself (its token is not checked)."""
        return deployment.ApiClient(self.url, token='demo:demo')

    def upload(self, image_id, data):
        req = urllib.request.Request(
            '%s/v2/images/%s/file' % (self.url, image_id), data=data,
            method='PUT',
            headers={'Content-Type': 'application/octet-stream'})
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def tail(self, lines=40):
        with open(self.log, errors='replace') as log:
            return ''.join(log.readlines()[-lines:])
