"""nova-lite-api: the compute API on cheroot.

cheroot (the WSGI server of CherryPy) is a pure-Python, thread-pooled
HTTP/1.1 server with keep-alive and a bounded worker pool: what a
threading (non-eventlet) API service needs, with no C build step.

The listening socket is made here, before ``[api] workers`` processes
fork to share it (or taken from systemd under socket activation).
"""

import sys

from nova_lite import config
from nova_lite.conf import CONF
from nova_lite import service
from nova_lite.wsgi import listener


def main():
    # A request the bus refuses is answered 503 with Retry-After at once
    # (the client retries), not held while the daemons' own retry runs.
    CONF.set_default('rpc_delivery_retry_timeout', 0)
    config.parse_args(sys.argv[1:])
    sock, activated = listener.api_socket(CONF.osapi_compute_listen,
                                          CONF.osapi_compute_listen_port,
                                          CONF.api.backlog)
    server = service.WSGIService(db_access=service.DB_READ_ONLY, sock=sock,
                                 sock_outlives=activated)
    sys.exit(service.launch(server, count=CONF.api.workers))
