"""The API's listening socket, made once before any worker forks.

With ``[api] workers`` above 1 every worker accepts from the one socket
made here in the parent process, so the port is bound once, a bind error
(the port in use) stops the service before it forks, and a worker that
dies and is restarted by the launcher leaves the others serving.

Under systemd socket activation (a ``nova-lite-api.socket`` unit) the
socket comes from systemd instead: the unit's ``ListenStream=`` decides
the address, and connections made while the API restarts wait in the
kernel's queue rather than being refused.

A socket made here is this service's alone: when the whole service stops,
its last act on it is to stop listening (``nova_lite/wsgi/server.py``),
so a client that comes later is refused rather than queued and then
reset as the process exits. systemd's socket stays listening.
"""

import os
import socket

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

# sd_listen_fds(3): the first socket systemd passes is file descriptor 3.
SD_LISTEN_FDS_START = 3
_ACTIVATION_ENV = ('LISTEN_PID', 'LISTEN_FDS', 'LISTEN_FDNAMES')


def activated_socket(environ=None):
    """The socket systemd passed to this process, or None.

    The variables are removed from the environment either way, so neither
    a child process nor cheroot (which would take fd 3 on seeing
    ``LISTEN_PID``) reads them again.
    """
    environ = os.environ if environ is None else environ
    pid = environ.get('LISTEN_PID')
    fds = environ.get('LISTEN_FDS')
    for name in _ACTIVATION_ENV:
        environ.pop(name, None)
    if pid is None or fds is None:
        return None
    if not (pid.isdigit() and int(pid) == os.getpid()):
        LOG.warning('Ignoring LISTEN_PID=%s: it names another process.', pid)
        return None
    if not fds.isdigit() or int(fds) < 1:
        LOG.warning('Ignoring LISTEN_FDS=%s: no socket was passed.', fds)
        return None
    if int(fds) > 1:
        LOG.warning('systemd passed %s sockets; nova-lite-api serves the '
                    'first only.', fds)
    sock = socket.socket(fileno=SD_LISTEN_FDS_START)
    if sock.type != socket.SOCK_STREAM:
        sock.detach()
        raise ValueError('The socket systemd passed is not a stream '
                         'socket; use ListenStream= in the socket unit.')
    return sock


def listen(host, port, backlog):
    """A TCP socket listening on ``host``:``port`` (IPv4 or IPv6, by what
    ``host`` resolves to first)."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, socket.AF_UNSPEC, socket.SOCK_STREAM, 0,
        socket.AI_PASSIVE)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(backlog)
    except OSError:
        sock.close()
        raise
    return sock


def api_socket(host, port, backlog):
    """(socket, activated): the socket the API serves, systemd's
    (``activated`` True) if it passed one, else a new one on
    ``host``:``port``."""
    sock = activated_socket()
    if sock is not None:
        sock.listen(backlog)
        LOG.info('Serving the socket systemd passed (%s).',
                 sock.getsockname())
        return sock, True
    return listen(host, port, backlog), False
