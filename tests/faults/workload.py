"""The fault suite's workload: the upgrade drill's boot/delete cycles,
through one API endpoint, keeping the headers a 503 must carry.

A connection refused before the request was sent (the API itself being
restarted) is recorded as ``refused``: nothing reached the service, so a
client may safely try again; it is reported, not counted as a failure.
"""

import http.client
import socket
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


class Workload(workload.Workload):
    """Cycles servers; also remembers when each boot was sent and when
    its server was seen ACTIVE (to measure recovery)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.actives = []  # (boot sent at, seen ACTIVE at), monotonic

    def _call(self, op, method, path, body=None, ok=(200, 202, 204)):
        try:
            return super()._call(op, method, path, body, ok)
        except (urllib.error.URLError, http.client.HTTPException,
                socket.timeout) as exc:  # pragma: no cover - recorded
            with self._lock:
                self.records.append(workload.Record(
                    self.phase_of(), op, type(exc).__name__, 0, True))
            return type(exc).__name__, None

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
        with self._lock:
            self.actives.append((sent, time.monotonic()))
        if self._call('delete', 'DELETE', '/servers/%s' % uuid)[0] == 204:
            self._wait(uuid, None, POLL_TIMEOUT)
