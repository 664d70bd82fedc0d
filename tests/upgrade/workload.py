"""A steady user workload through the API, counting every failure.

Each worker loops: boot a server, wait for ACTIVE, list, show, resize it
and confirm, cold-migrate it (as an admin) and confirm, delete, wait until
it is gone. The moves start only once no API of the old release serves
(``moves_allowed``): an API older than the moves cannot show a server in
their states (acorn's answers 500 for a VERIFY_RESIZE server), which is
why the upgrade order puts the APIs before the moves are used. A new API
whose computes are still pinned below the moves refuses them with a 409
that says so: recorded as ``refused``, not a failure (a refused confirm
is asked again, as a user would); the server must still be ACTIVE
afterwards, which the next step checks.

Every HTTP request is recorded with the phase it ran in, its latency and
whether it failed. The API endpoints form a pool the client fails over
within, like a load balancer: a connection refused before the request is
sent (an API being replaced) tries the next endpoint and is not a
failure; anything after the request left is.
"""

import collections
import errno
import http.client
import json
import socket
import threading
import time
import urllib.error
import urllib.request

Record = collections.namedtuple('Record', 'phase op status seconds failed')


class Unavailable(Exception):
    """No endpoint accepted the connection."""


class ApiPool:
    def __init__(self, endpoints, token):
        self._endpoints = list(endpoints)
        self._lock = threading.Lock()
        self._next = 0
        self.token = token
        self.failovers = 0

    def set_endpoints(self, endpoints):
        with self._lock:
            self._endpoints = list(endpoints)

    def _order(self):
        with self._lock:
            endpoints = list(self._endpoints)
            self._next += 1
            start = self._next % len(endpoints)
        return endpoints[start:] + endpoints[:start]

    def request(self, method, path, body=None):
        """(status, body) from the first endpoint that takes it."""
        for endpoint in self._order():
            try:
                return _send(endpoint, method, path, body, self.token)
            except ConnectionRefusedError:
                with self._lock:
                    self.failovers += 1
        raise Unavailable('no API endpoint accepted %s %s' % (method, path))


def _send(endpoint, method, path, body, token):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(endpoint + path, data=data, method=method)
    req.add_header('X-Auth-Token', token)
    if data is not None:
        req.add_header('Content-Type', 'application/json')
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            payload = resp.read()
            return resp.status, json.loads(payload) if payload else None
    except urllib.error.HTTPError as err:
        payload = err.read()
        try:
            return err.code, json.loads(payload) if payload else None
        except ValueError:
            return err.code, payload.decode(errors='replace')
    except urllib.error.URLError as err:
        reason = err.reason
        if isinstance(reason, ConnectionRefusedError) or getattr(
                reason, 'errno', None) == errno.ECONNREFUSED:
            raise ConnectionRefusedError() from err
        raise


# The 409 of a new API whose computes are pinned below a move's version.
PINNED_REFUSAL = 'are pinned ([upgrade_levels] compute) below'


def pinned_refusal(status, body):
    return status == 409 and PINNED_REFUSAL in str(body)


class Workload:
    """``workers`` threads cycling servers until ``stop()``.

    ``moves``, when given, is (admin pool, flavor to resize to, function
    telling whether the servers may be moved now).
    """

    def __init__(self, pool, image, flavor, workers, phase_of, moves=None):
        self.pool = pool
        self.image = image
        self.flavor = flavor
        self.workers = workers
        self.phase_of = phase_of
        self.moves = moves
        self.records = []
        self.created = set()
        self.stuck = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = []

    def start(self):
        for index in range(self.workers):
            thread = threading.Thread(target=self._run, args=(index,),
                                      daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self):
        self._stop.set()
        for thread in self._threads:
            thread.join(300)

    def _call(self, op, method, path, body=None, ok=(200, 202, 204),
              pool=None, refusal=None):
        """Send one request and record it; (status, body). A response
        ``refusal(status, body)`` calls clean is recorded as op
        ``refused``, not a failure, and its status returned as
        ``'refused'``."""
        started = time.monotonic()
        phase = self.phase_of()
        try:
            status, payload = (pool or self.pool).request(method, path, body)
        except (Unavailable, OSError, http.client.HTTPException,
                socket.timeout) as exc:
            status, payload = type(exc).__name__, str(exc)
        failed = status not in ok
        recorded = status
        if failed and refusal and refusal(status, payload):
            op, failed, status = 'refused', False, 'refused'
        with self._lock:
            self.records.append(Record(phase, op, recorded,
                                       time.monotonic() - started, failed))
        return status, payload

    def _run(self, index):
        cycle = 0
        while not self._stop.is_set():
            cycle += 1
            self._cycle('drill-%d-%d' % (index, cycle))

    def _cycle(self, name):
        status, body = self._call('boot', 'POST', '/servers', {'server': {
            'name': name, 'imageRef': self.image, 'flavorRef': self.flavor}})
        if status != 202:
            return
        uuid = body['server']['id']
        with self._lock:
            self.created.add(uuid)
        if not self._wait(uuid, 'ACTIVE'):
            return
        self._call('list', 'GET', '/servers')
        self._call('show', 'GET', '/servers/%s' % uuid)
        if self.moves and not self._moves(uuid):
            return
        if self._call('delete', 'DELETE', '/servers/%s' % uuid)[0] == 204:
            self._wait(uuid, None)

    def _moves(self, uuid):
        """Resize and confirm, then migrate and confirm; False if the
        server did not come back ACTIVE."""
        admin, flavor, moves_allowed = self.moves
        if not moves_allowed():
            return True
        path = '/servers/%s/action' % uuid
        for op, pool, body in (
                ('resize', self.pool, {'resize': {'flavorRef': flavor}}),
                ('migrate', admin, {'migrate': None})):
            status, _ = self._call(op, 'POST', path, body, ok=(202,),
                                   pool=pool, refusal=pinned_refusal)
            if status == 202:
                if not self._wait(uuid, 'VERIFY_RESIZE'):
                    return False
                self._confirm(path)
            if not self._wait(uuid, 'ACTIVE'):
                return False
        return True

    def _confirm(self, path, timeout=60):
        """Confirm the resize; an API still pinned below the moves (the
        other endpoint is being upgraded) refuses it, so ask again, as a
        user would."""
        deadline = time.monotonic() + timeout
        while True:
            status, _ = self._call('confirm', 'POST', path,
                                   {'confirmResize': None}, ok=(204,),
                                   refusal=pinned_refusal)
            if status != 'refused' or time.monotonic() > deadline:
                return
            time.sleep(0.5)

    def moved(self):
        """How many resizes and migrations were accepted."""
        return sum(1 for r in self.records
                   if r.op in ('resize', 'migrate') and not r.failed)

    def _wait(self, uuid, status, timeout=120):
        """Poll until the server has ``status`` (None: gone)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            code, body = self._call('poll', 'GET', '/servers/%s' % uuid,
                                    ok=(200, 404))
            if status is None and code == 404:
                return True
            if code == 200:
                current = body['server']['status']
                if current == status:
                    return True
                if current == 'ERROR':
                    with self._lock:
                        self.stuck.append((uuid, current,
                                           body['server'].get('fault')))
                    return False
                if status == 'VERIFY_RESIZE' and _move_undone(body):
                    with self._lock:
                        self.stuck.append((uuid, 'move undone',
                                           self._last_events(uuid)))
                    return False
            time.sleep(0.25)
        with self._lock:
            self.stuck.append((uuid, 'timeout waiting for %s' % status, None))
        return False

    def _last_events(self, uuid):
        """The events of the server's newest instance action (why a move
        was undone)."""
        path = '/servers/%s/os-instance-actions' % uuid
        code, body = self.pool.request('GET', path)
        if code != 200 or not body.get('instanceActions'):
            return (code, body)
        action = body['instanceActions'][0]
        code, body = self.pool.request(
            'GET', '%s/%s' % (path, action['request_id']))
        events = (body or {}).get('instanceAction', {}).get('events', [])
        return [(action['action'], e.get('event'), e.get('result'),
                 e.get('traceback') or e.get('details')) for e in events]


def _move_undone(body):
    """ACTIVE (or SHUTOFF) with no task: the move ended without reaching
    VERIFY_RESIZE (the API set a task before it answered 202)."""
    server = body['server']
    return (server['status'] in ('ACTIVE', 'SHUTOFF')
            and server.get('OS-EXT-STS:task_state') is None)
