"""nova-lite-api: the compute API on cheroot.

cheroot (the WSGI server of CherryPy) is a pure-Python, thread-pooled
HTTP/1.1 server with keep-alive and a bounded worker pool: what a
threading (non-eventlet) API service needs, with no C build step.
"""

import sys

from nova_lite import config
from nova_lite import service


def main():
    config.parse_args(sys.argv[1:])
    server = service.WSGIService(db_access=service.DB_READ_ONLY)
    sys.exit(service.launch(server))
