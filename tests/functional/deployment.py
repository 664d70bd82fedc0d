"""Run nova_lite's daemons as real processes, for functional tests.

A ``Deployment`` gets a scratch database on a real server (or SQLite), its
own RabbitMQ virtual host, a config file in a temporary directory, and
starts ``nova-lite-conductor``, ``-scheduler``, one ``-compute`` per
configured host and ``-api`` as separate processes, each waiting for its
systemd readiness notification (``READY=1`` on NOTIFY_SOCKET), so a test
starts exactly when the daemons say they consume. ``stop()`` sends SIGTERM
and checks that every daemon exits 0.

The slow set-up runs ahead, on threads, while the previous tests run: a
server database is a copy of a migrated template
(``db_fixtures.migrated_copy``, checked against ``db sync`` by
tests/functional/db/test_template_copies.py), and in the functional
tests a virtual host is made before it is asked for (``rabbitmqctl``
boots an Erlang VM per call).
``cleanup(wait=False)`` deletes them the same way.
"""

import atexit
import concurrent.futures
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid

import sqlalchemy as sa

from tests import db_fixtures

BIN = os.path.dirname(sys.executable)
RABBIT = os.environ.get('NOVA_LITE_TEST_RABBIT',
                        'rabbit://guest:guest@127.0.0.1:5672')
READY_TIMEOUT = float(os.environ.get('NOVA_LITE_TEST_READY_TIMEOUT', 90))
# Seconds without a heartbeat before a service is down (short, so tests
# about a service that stays away do not wait a minute).
SERVICE_DOWN_TIME = 20


# Runs a daemon as systemd does for a socket unit (nova-lite-api.socket):
# the listening socket as file descriptor 3, LISTEN_PID naming the
# daemon's own process.
ACTIVATE = (
    'import os, sys\n'
    'os.dup2(int(sys.argv[1]), 3)\n'
    'os.environ.update(LISTEN_PID=str(os.getpid()), LISTEN_FDS="1")\n'
    'os.execv(sys.argv[2], sys.argv[2:])\n')


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def _ini(sections):
    lines = []
    for section, options in sections.items():
        lines.append('[%s]' % section)
        for key, value in options.items():
            values = value if isinstance(value, (list, tuple)) else [value]
            lines.extend('%s = %s' % (key, v) for v in values)
        lines.append('')
    return '\n'.join(lines)


class RabbitVhost:
    """A throw-away virtual host, so parallel or leftover runs never meet.

    ``RabbitVhost.made()`` is one already created: with ``ahead`` (the
    functional tests' conftest sets it), the next one is made meanwhile.
    ``delete(wait=False)`` deletes it while the caller goes on.
    """

    ahead = False
    _lock = threading.Lock()
    _pool = None
    _next = None      # the Future of the next made vhost

    def __init__(self):
        self.name = 'nl_%s' % uuid.uuid4().hex[:10]

    def _ctl(self, *args):
        subprocess.run(['rabbitmqctl', *args], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    @property
    def url(self):
        return '%s/%s' % (RABBIT, self.name)

    def create(self):
        self._ctl('add_vhost', self.name)
        self._ctl('set_permissions', '-p', self.name, 'guest', '.*', '.*',
                  '.*')
        return self.url

    def delete(self, wait=True):
        if wait:
            self._ctl('delete_vhost', self.name)
        else:
            self._background().submit(self._delete_quietly)

    def _delete_quietly(self):
        try:
            self._ctl('delete_vhost', self.name)
        except Exception as exc:
            print('could not delete vhost %s: %s' % (self.name, exc),
                  file=sys.stderr)

    @classmethod
    def _background(cls):
        if cls._pool is None:
            cls._pool = concurrent.futures.ThreadPoolExecutor(
                1, thread_name_prefix='nl-vhosts')
            atexit.register(cls._close)
        return cls._pool

    @classmethod
    def made(cls):
        """A created vhost."""
        def make():
            vhost = cls()
            vhost.create()
            return vhost
        with cls._lock:
            pool = cls._background()
            ready = cls._next or pool.submit(make)
            cls._next = pool.submit(make) if cls.ahead else None
        return ready.result()

    @classmethod
    def _close(cls):
        cls._pool.shutdown(wait=True)
        if cls._next is not None and cls._next.exception() is None:
            cls._next.result()._delete_quietly()


class Daemon:
    # File descriptors the daemon inherits (a socket-activated one's).
    pass_fds = ()

    def __init__(self, name, argv, workdir, env=None):
        self.name = name
        self.argv = argv
        self.log = os.path.join(workdir, '%s.log' % name)
        self.notify_path = os.path.join(workdir, '%s.notify' % name)
        self.env = env
        self.proc = None
        self._sock = None

    def start(self):
        if os.path.exists(self.notify_path):
            os.unlink(self.notify_path)
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._sock.bind(self.notify_path)
        env = dict(os.environ, NOTIFY_SOCKET=self.notify_path,
                   **(self.env or {}))
        with open(self.log, 'ab') as log:
            self.proc = subprocess.Popen(
                self.argv + ['--log-file', self.log], env=env,
                stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True, pass_fds=self.pass_fds)

    def wait_ready(self, timeout=READY_TIMEOUT):
        deadline = time.monotonic() + timeout
        self._sock.settimeout(0.5)
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError('%s exited with %s before READY:\n%s' % (
                    self.name, self.proc.returncode, self.tail()))
            try:
                if b'READY=1' in self._sock.recv(4096):
                    return
            except socket.timeout:
                continue
        raise RuntimeError('%s not READY after %ss:\n%s' % (
            self.name, timeout, self.tail()))

    def terminate(self):
        """Send SIGTERM (if running)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)

    def stop(self, timeout=60):
        """SIGTERM, wait; return the exit code (kills after ``timeout``)."""
        if self.proc is None:
            return None
        self.terminate()
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            return 'killed'
        finally:
            self._sock.close()

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def tail(self, lines=60):
        try:
            with open(self.log, errors='replace') as log:
                return ''.join(log.readlines()[-lines:])
        except OSError:
            return '(no log)'


class ApiClient:
    """A tiny JSON client for the compute API (urllib only)."""

    def __init__(self, endpoint, token='demo:demo'):
        self.endpoint = endpoint.rstrip('/')
        self.token = token

    def request(self, method, path, body=None, headers=None, raw=None):
        url = self.endpoint + path
        data = raw if raw is not None else (
            json.dumps(body).encode() if body is not None else None)
        req = urllib.request.Request(url, data=data, method=method)
        if self.token is not None:
            req.add_header('X-Auth-Token', self.token)
        if data is not None:
            req.add_header('Content-Type', 'application/json')
        for key, value in (headers or {}).items():
            req.add_header(key, value)
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                return resp.status, dict(resp.headers), _json(resp.read())
        except urllib.error.HTTPError as err:
            return err.code, dict(err.headers), _json(err.read())

    def get(self, path, **kw):
        return self.request('GET', path, **kw)

    def post(self, path, body=None, **kw):
        return self.request('POST', path, body, **kw)

    def delete(self, path, **kw):
        return self.request('DELETE', path, **kw)

    def put(self, path, body=None, **kw):
        return self.request('PUT', path, body, **kw)

    def as_user(self, token):
        return ApiClient(self.endpoint, token)


def _json(payload):
    if not payload:
        return None
    try:
        return json.loads(payload)
    except ValueError:
        return payload.decode(errors='replace')


class Deployment:
    """The four daemons on RabbitMQ and a real database.

    ``computes`` maps a compute host name to its [fake_driver] options.
    ``schedulers`` scheduler daemons run side by side (active/active on
    the one topic): the first is named "scheduler", the others
    "scheduler2", ..., each with its own ``host``. ``env`` maps a daemon
    name to environment variables added to that daemon's (``'*'``: every
    daemon's). ``daemon_conf`` maps a compute host name to more options
    ({section: {option: value}}) for that compute only.
    """

    def __init__(self, workdir, backend='postgresql', computes=None,
                 conf=None, schedulers=1, env=None, daemon_conf=None,
                 api_socket=False):
        self.workdir = str(workdir)
        self.backend = backend
        self.computes = computes or {'compute1': {'node_count': 5}}
        self.schedulers = schedulers
        self.extra_conf = conf or {}
        self.env = env or {}
        self.daemon_conf = daemon_conf or {}
        self.database = None
        self.vhost = None
        self.port = free_port()
        # With ``api_socket``, this process holds the API's listening
        # socket and every nova-lite-api it starts is handed it, as
        # systemd's socket unit does: a restarted API refuses nothing.
        self.api_socket = api_socket
        self._listener = None
        self.daemons = []
        self.config_file = os.path.join(self.workdir, 'nova_lite.conf')
        self._engine = None

    def _base_conf(self, transport_url):
        sections = {
            'DEFAULT': {'transport_url': transport_url,
                        'state_path': os.path.join(self.workdir, 'state'),
                        'report_interval': 2,
                        'service_down_time': SERVICE_DOWN_TIME,
                        'osapi_compute_listen': '127.0.0.1',
                        'osapi_compute_listen_port': self.port,
                        'rpc_response_timeout': 30,
                        'graceful_shutdown_timeout': 30,
                        'debug': 'true'},
            'database': {'connection': self.database.url},
            'api': {'rate_limit': 'false'},
            'scheduler': {'host_state_resync_interval': 30},
            # Tests about other things must not run into the default
            # quotas; the quota tests set their own.
            'quota': {'instances': -1, 'cores': -1, 'ram': -1},
        }
        for section, options in self.extra_conf.items():
            sections.setdefault(section, {}).update(options)
        return sections

    def _write(self, name, sections):
        path = os.path.join(self.workdir, name)
        with open(path, 'w') as conf:
            conf.write(_ini(sections))
        return path

    def _daemon(self, binary, name, *config_files):
        argv = [os.path.join(BIN, binary)]
        for path in (self.config_file,) + config_files:
            argv += ['--config-file', path]
        fds = ()
        if binary == 'nova-lite-api' and self.api_socket:
            fds = (self._held_socket().fileno(),)
            argv = [sys.executable, '-c', ACTIVATE, str(fds[0])] + argv
        env = dict(self.env.get('*', {}), **self.env.get(name, {}))
        daemon = Daemon(name, argv, self.workdir, env=env or None)
        daemon.pass_fds = fds
        self.daemons.append(daemon)
        return daemon

    def _held_socket(self):
        if self._listener is None:
            self._listener = socket.socket()
            self._listener.setsockopt(socket.SOL_SOCKET,
                                      socket.SO_REUSEADDR, 1)
            self._listener.bind(('127.0.0.1', self.port))
            self._listener.listen(128)
        return self._listener

    def start(self):
        os.makedirs(self.workdir, exist_ok=True)
        self.vhost = RabbitVhost.made()
        if self.backend == 'sqlite':
            self.database = db_fixtures.ScratchDatabase(self.backend)
            self.database.create()
        else:
            self.database = db_fixtures.migrated_copy(self.backend)
        self._write('nova_lite.conf', self._base_conf(self.vhost.url))
        if self.backend == 'sqlite':
            subprocess.run([os.path.join(BIN, 'nova-lite-manage'),
                            '--config-file', self.config_file, 'db',
                            'sync'], check=True, capture_output=True)
        order = [self._daemon('nova-lite-conductor', 'conductor'),
                 self._daemon('nova-lite-scheduler', 'scheduler')]
        for index in range(2, self.schedulers + 1):
            name = 'scheduler%d' % index
            extra = self._write('%s.conf' % name,
                                {'DEFAULT': {'host': name}})
            order.append(self._daemon('nova-lite-scheduler', name, extra))
        for host, driver_conf in self.computes.items():
            sections = {'DEFAULT': {'host': host},
                        'fake_driver': dict(driver_conf)}
            for section, options in self.daemon_conf.get(host, {}).items():
                sections.setdefault(section, {}).update(options)
            extra = self._write('%s.conf' % host, sections)
            order.append(self._daemon('nova-lite-compute', host, extra))
        order.append(self._daemon('nova-lite-api', 'api'))
        for daemon in order:
            daemon.start()
        for daemon in order:
            daemon.wait_ready()
        return self

    def start_daemon(self, binary, name, conf=None):
        """Start one more daemon (a replacement conductor, say), with
        ``conf`` ({section: {option: value}}) over the shared file; return
        it once READY."""
        extra = (self._write('%s.conf' % name, conf),) if conf else ()
        daemon = self._daemon(binary, name, *extra)
        daemon.start()
        daemon.wait_ready()
        return daemon

    def kill(self, daemon):
        """SIGKILL ``daemon`` (no clean exit expected from it)."""
        daemon.kill()
        daemon.stop()  # reaps it and closes its notify socket
        self.daemons.remove(daemon)

    @property
    def api(self):
        return ApiClient('http://127.0.0.1:%d/v2.1' % self.port)

    @property
    def service_down_time(self):
        """The daemons' service_down_time, in seconds."""
        return int(self.extra_conf.get('DEFAULT', {}).get(
            'service_down_time', SERVICE_DOWN_TIME))

    @property
    def admin_api(self):
        return self.api.as_user('admin:admin')

    def daemon(self, name):
        return next(d for d in self.daemons if d.name == name)

    def stop(self):
        """Stop every daemon; return {name: exit code}.

        The API stops first (no new work), then the rest together.
        """
        codes = {}
        api = [d for d in self.daemons if d.name == 'api']
        for daemon in api:
            codes[daemon.name] = daemon.stop()
        others = [d for d in self.daemons if d.name != 'api']
        for daemon in others:
            daemon.terminate()
        for daemon in others:
            codes[daemon.name] = daemon.stop()
        return codes

    def manage(self, *args):
        """Run nova-lite-manage with ``args``; the CompletedProcess."""
        return subprocess.run(
            [os.path.join(BIN, 'nova-lite-manage'), '--config-file',
             self.config_file, *args], capture_output=True, text=True)

    def register_image(self, name='cirros', disk_format='qcow2'):
        """Register an image with nova-lite-manage; return its id."""
        out = subprocess.run(
            [os.path.join(BIN, 'nova-lite-manage'), '--config-file',
             self.config_file, 'image', 'create', name, '--disk-format',
             disk_format],
            check=True, capture_output=True, text=True)
        return out.stdout.strip()

    def vm_uuids(self, host):
        """The uuids of the VMs the fake driver of compute ``host`` runs,
        read from its files (``virt/fake_vms.py``), as a hypervisor's list
        of guests: they are there whether that compute runs or not."""
        directory = os.path.join(self.workdir, 'state', 'fake_driver',
                                 '%s.vms' % host)
        try:
            names = os.listdir(directory)
        except FileNotFoundError:
            return set()
        return {name[:-len('.json')] for name in names
                if name.endswith('.json')}

    def sql(self, statement, **params):
        """Run one SQL statement on the deployment's database (read it
        as the daemons left it); return the rows."""
        if self._engine is None:
            self._engine = sa.create_engine(self.database.url)
        with self._engine.connect() as conn:
            return conn.execute(sa.text(statement), params).all()

    def cleanup(self, wait=True):
        """Kill what still runs, delete the vhost and drop the database
        (with ``wait=False``, those two go on in the background)."""
        for daemon in self.daemons:
            daemon.kill()
        if self._listener is not None:
            self._listener.close()
        if self._engine is not None:
            self._engine.dispose()
        try:
            if self.vhost is not None:
                self.vhost.delete(wait)
        finally:
            self._drop_database(wait)

    def _drop_database(self, wait):
        if self.database is None:
            return
        if wait or self.backend == 'sqlite':
            self.database.drop()
        else:
            db_fixtures.drop_later(self.database)

    def logs(self):
        return '\n'.join('==== %s ====\n%s' % (d.name, d.tail(200))
                         for d in self.daemons)


def wait_for(predicate, timeout=60, interval=0.2, message='condition'):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(interval)
    raise AssertionError('timed out after %ss waiting for %s' % (timeout,
                                                                  message))


