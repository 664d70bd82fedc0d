"""``GET /healthcheck``: can this API do its work? For load balancers.

No authentication (it says nothing about anyone's resources). It asks the
two things every API request needs:

* the database: one ``SELECT 1``;
* the bus: a round trip to a conductor (``ping``), with a short timeout,
  which also says that some conductor answers.

200 with ``{"status": "ok", "checks": {"database": "ok", "bus": "ok"}}``
when both answer, else 503 with ``Retry-After`` and, for the failing
check, the kind of error (the details go to the log only). The answer is kept
for a second, so a load balancer polling many APIs often costs little.

    curl http://127.0.0.1:8774/healthcheck
"""

import threading
import time

from oslo_log import log as logging
import sqlalchemy as sa

from nova_lite.api import wsgi
from nova_lite import context as nl_context
from nova_lite.db import api as db_api
from nova_lite import exception

LOG = logging.getLogger(__name__)

# Seconds the conductor has to answer: a healthy one takes milliseconds.
BUS_TIMEOUT = 3
CACHE_SECONDS = 1.0


def _check_database():
    with db_api.get_engine().connect() as conn:
        conn.execute(sa.text('SELECT 1'))


def _check_bus():
    from nova_lite.conductor import rpcapi as conductor_rpcapi
    conductor_rpcapi.ConductorAPI().ping(
        nl_context.get_admin_context(), 'healthcheck', timeout=BUS_TIMEOUT)


CHECKS = (('database', _check_database), ('bus', _check_bus))


class HealthCheck:
    """The WSGI app; ``checks`` is ((name, callable raising on failure))."""

    def __init__(self, checks=CHECKS, clock=time.monotonic):
        self.checks = checks
        self.clock = clock
        self._lock = threading.Lock()
        self._cached = None          # (when, results)

    @classmethod
    def factory(cls, global_config, **local_config):
        return cls()

    def results(self):
        """{check name: 'ok' or the reason it failed}."""
        with self._lock:
            if self._cached and self.clock() - self._cached[0] < \
                    CACHE_SECONDS:
                return self._cached[1]
            results = {}
            for name, check in self.checks:
                try:
                    check()
                    results[name] = 'ok'
                except Exception as exc:
                    # The endpoint needs no token: say which check failed
                    # and how, keep the details (addresses) for the log.
                    LOG.warning('Health check %s failed: %s', name, exc)
                    results[name] = 'failed: %s' % type(exc).__name__
            self._cached = (self.clock(), results)
            return results

    def __call__(self, environ, start_response):
        if environ.get('REQUEST_METHOD') not in ('GET', 'HEAD'):
            response = wsgi.json_response(
                {'error': 'use GET'}, status=405, headers={'Allow': 'GET'})
            return response(environ, start_response)
        results = self.results()
        healthy = all(value == 'ok' for value in results.values())
        headers = None if healthy else {
            'Retry-After': str(exception.RETRY_AFTER)}
        response = wsgi.json_response(
            {'status': 'ok' if healthy else 'unavailable',
             'checks': results}, status=200 if healthy else 503,
            headers=headers)
        return response(environ, start_response)
