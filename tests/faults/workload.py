"""The fault suite's workload: the upgrade drill's boot/delete cycles,
through one API endpoint, keeping the headers a 503 must carry.

Every other worker also takes each server it boots through its life
before deleting it: a soft reboot, stop, start, a resize and a cold
migration (each confirmed). Those servers are not counted for the
recovery time (their cycles are long); a move a fault interrupts may end
in ERROR with a fault, which is a definite state.

A connection refused is recorded as ``refused``. The suite holds the
API's listening socket as systemd's ``nova-lite-api.socket`` does, so a
restarted API must refuse nothing: a refusal counts as a failure.
"""

import http.client
import socket
import threading
import time
import urllib.error

from tests.functional import deployment
from tests.upgrade import workload

POLL_TIMEOUT = 45


class Pool:
    """``workload.ApiPool``'s interface over ``deployment.ApiClient``."""

    def __init__(self, endpoint, token):
        self._client = deployment.ApiClient(endpoint, token)

    def request(self, method, path, body=None):
        try:
            status, headers, payload = self._client.request(method, path,
                                                            body)
        except urllib.error.URLError as err:
            if isinstance(err.reason, ConnectionRefusedError):
                return 'refused', None
            raise
        if status == 503 and not headers.get('Retry-After'):
            return '503 without Retry-After', payload
        return status, payload


# The server actions of a lifecycle cycle: (op, body, status after).
ACTIONS = (('reboot', {'reboot': {'type': 'SOFT'}}, 'ACTIVE'),
           ('stop', {'os-stop': None}, 'SHUTOFF'),
           ('start', {'os-start': None}, 'ACTIVE'))


class Workload(workload.Workload):
    """Cycles servers; also remembers when each boot was sent and when
    its server was seen ACTIVE (to measure recovery). ``moves``: as the
    drill's (admin pool, flavor to resize to, whether moves are allowed
    now); the odd workers take their servers through ``ACTIONS`` and
    those moves."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.actives = []  # (boot sent at, seen ACTIVE at), monotonic
        self._lifecycle = threading.local()

    def _run(self, index):
        self._lifecycle.on = bool(index % 2) and self.moves is not None
        super()._run(index)

    def _call(self, op, method, path, body=None, ok=(200, 202, 204),
              **kwargs):
        try:
            return super()._call(op, method, path, body, ok, **kwargs)
        except (urllib.error.URLError, http.client.HTTPException,
                socket.timeout) as exc:  # pragma: no cover - recorded
            with self._lock:
                self.records.append(workload.Record(
                    self.phase_of(), op, type(exc).__name__, 0, True))
            return type(exc).__name__, None

    def _confirm(self, path, timeout=POLL_TIMEOUT):
        """Confirm the resize; a 503 (an outage) is asked again after a
        pause, as a user told to retry would, until it is answered
        otherwise or ``timeout`` passed."""
        deadline = time.monotonic() + timeout
        while True:
            status, _ = self._call('confirm', 'POST', path,
                                   {'confirmResize': None}, ok=(204,))
            if status != 503 or time.monotonic() > deadline:
                return
            time.sleep(1)

    def _cycle(self, name):
        sent = time.monotonic()
        status, body = self._call('boot', 'POST', '/servers', {'server': {
            'name': name, 'imageRef': self.image, 'flavorRef': self.flavor}})
        if status != 202:
            time.sleep(0.5)  # an outage: do not spin
            return
        uuid = body['server']['id']
        with self._lock:
            self.created.add(uuid)
        if not self._wait(uuid, 'ACTIVE', POLL_TIMEOUT):
            return
        lifecycle = getattr(self._lifecycle, 'on', False)
        if not lifecycle:
            with self._lock:
                self.actives.append((sent, time.monotonic()))
        elif not self._live(uuid):
            return
        if self._call('delete', 'DELETE', '/servers/%s' % uuid)[0] == 204:
            self._wait(uuid, None, POLL_TIMEOUT)

    def probe(self):
        """One boot sent now, outside the workers (which may all be
        waiting out calls the fault lost): recorded in ``actives`` when
        its server is seen ACTIVE, so the recovery after a fault is
        measured even then. The server is left for the clean-up."""
        sent = time.monotonic()
        status, body = self._call('boot', 'POST', '/servers', {'server': {
            'name': 'probe', 'imageRef': self.image,
            'flavorRef': self.flavor}})
        if status != 202:
            return
        uuid = body['server']['id']
        with self._lock:
            self.created.add(uuid)
        if self._wait(uuid, 'ACTIVE', POLL_TIMEOUT):
            with self._lock:
                self.actives.append((sent, time.monotonic()))

    def _live(self, uuid):
        """The server actions, then the moves; False if the server did
        not end where an action should have left it. An action refused
        (a 503 in an outage) ends the server's life there: it is
        deleted."""
        path = '/servers/%s/action' % uuid
        for op, body, after in ACTIONS:
            if self._stop.is_set():
                return True  # the fault is over: delete it and stop
            status, _ = self._call(op, 'POST', path, body, ok=(202,))
            if status != 202:
                return True  # refused (an outage): on to the delete
            if not self._settled(uuid, after):
                return False
        return self._stop.is_set() or self._moves(uuid)

    def _settled(self, uuid, status):
        """Poll until the server is ``status`` (True) or ended its task
        otherwise (False, recorded: a compute that went down has its
        task cleared by the conductor, the vm_state kept, which is
        definite), or POLL_TIMEOUT passed (recorded as a timeout)."""
        deadline = time.monotonic() + POLL_TIMEOUT
        while time.monotonic() < deadline:
            code, body = self._call('poll', 'GET', '/servers/%s' % uuid,
                                    ok=(200,))
            server = (body or {}).get('server') if code == 200 else None
            if server and server['status'] == status:
                return True
            if server and server.get('OS-EXT-STS:task_state') is None:
                with self._lock:
                    self.stuck.append((uuid, 'ended %s, not %s' % (
                        server['status'], status), server.get('fault')))
                return False
            time.sleep(0.25)
        with self._lock:
            self.stuck.append((uuid, 'timeout waiting for %s' % status,
                               None))
        return False
