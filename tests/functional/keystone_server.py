"""Serve a real Keystone's public API on cheroot, for functional tests.

Keystone ships its WSGI application (``keystone.server.wsgi``) but no
server of its own. This runner loads it from the configuration named by
``OS_KEYSTONE_CONFIG_DIR`` (Keystone's own convention), binds
127.0.0.1:``--port``, announces ``READY=1`` on ``NOTIFY_SOCKET`` as the
nova_lite daemons do (so ``deployment.Daemon`` can start and stop it), and
exits 0 on SIGTERM::

    OS_KEYSTONE_CONFIG_DIR=/tmp/ks python keystone_server.py --port 5000
"""

import argparse
import os
import signal
import socket
import sys
import threading

from cheroot import wsgi


def _notify_ready():
    path = os.environ.get('NOTIFY_SOCKET')
    if not path:
        return
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.sendto(b'READY=1', path)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--port', type=int, required=True)
    # deployment.Daemon appends --log-file; Keystone logs to stderr
    # (use_stderr in its configuration), which the Daemon already sends
    # to that file.
    parser.add_argument('--log-file')
    args = parser.parse_args()
    # Keystone parses the command line as its own (oslo.config): leave it
    # only the program name.
    sys.argv[1:] = []
    # Imported here: loading Keystone reads its configuration files.
    from keystone.server import wsgi as keystone_wsgi

    app = keystone_wsgi.initialize_public_application()
    server = wsgi.Server(('127.0.0.1', args.port), app, numthreads=8)
    # Block the signals before the serving thread starts, so it inherits
    # the mask and only sigwait below sees them.
    stop = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop)
    server.prepare()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    _notify_ready()
    signal.sigwait(stop)
    server.stop()
    thread.join(timeout=30)


if __name__ == '__main__':
    main()
