"""Serve a real Glance API for the functional tests (not a nova_lite module).

Run with the Python of the venv that holds the ``glance`` package::

    OS_GLANCE_CONFIG_DIR=DIR python glance_wsgi.py HOST PORT

Glance ships only a WSGI application now (``glance.wsgi.api``); the tests
need no uWSGI, so this serves it with the standard library's threading
WSGI server.
"""

import socketserver
import sys
from wsgiref import simple_server


class _Server(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    daemon_threads = True


class _Quiet(simple_server.WSGIRequestHandler):
    def log_message(self, fmt, *args):
        sys.stderr.write('glance-api: %s\n' % (fmt % args))


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    from glance.wsgi import api
    server = simple_server.make_server(host, port, api.application,
                                       server_class=_Server,
                                       handler_class=_Quiet)
    print('serving', flush=True)
    server.serve_forever()


if __name__ == '__main__':
    main()
