"""nova-lite-api's HTTP server: cheroot, with Nova's header limits.

cheroot reads request headers without a per-line limit, answers 413 when
they exceed its total, and keeps only the last of two same-named headers.
Here a header line longer than ``[api] max_header_line`` or headers beyond
``[api] max_request_header_size`` get 431 (RFC 6585), and a request with
more than one of a header that must be single (``X-Auth-Token``: which
one would authenticate the request is ambiguous, so neither does) gets a
400. Both answers are Nova-shaped JSON faults and close the connection.

Usage::

    server = make_server(('127.0.0.1', 8774), app, numthreads=32)
"""

import errno
import os
import socket
import time

from cheroot import errors
from cheroot import makefile
from cheroot import server as cheroot_server
from cheroot import wsgi as cheroot_wsgi
from oslo_log import log as logging
from oslo_serialization import jsonutils

from nova_lite.api import faults
from nova_lite.conf import CONF

# Headers whose repetition is refused, lower-case.
SINGLE_HEADERS = (b'x-auth-token', b'x-subject-token')

LOG = logging.getLogger(__name__)


class HeaderTooLarge(Exception):
    """A header line, or all the headers, are longer than allowed."""


class DuplicateHeader(Exception):
    """A header that must appear once appeared again."""


class _CheckedLines:
    """The request stream as the header reader sees it: each line is
    checked for length and for a repeated single header."""

    def __init__(self, rfile, max_line):
        self.rfile = rfile
        self.max_line = max_line
        self.seen = set()

    def readline(self, size=None):
        line = self.rfile.readline()
        if len(line) > self.max_line:
            raise HeaderTooLarge('A request header line is longer than '
                                 '%d bytes.' % self.max_line)
        if b':' in line and line[:1] not in (b' ', b'\t'):
            name = line.split(b':', 1)[0].strip().lower()
            if name in SINGLE_HEADERS:
                if name in self.seen:
                    raise DuplicateHeader(
                        'The header %s appears more than once.'
                        % name.decode('ascii').title())
                self.seen.add(name)
        return line

    def read(self, size=None):
        return self.rfile.read(size)


class CheckedHeaderReader(cheroot_server.HeaderReader):
    """cheroot's header reader over ``_CheckedLines``."""

    def __init__(self, max_line):
        self.max_line = max_line

    def __call__(self, rfile, hdict=None):
        return super().__call__(_CheckedLines(rfile, self.max_line), hdict)


class CheckedRequest(cheroot_server.HTTPRequest):
    """An HTTPRequest that answers header faults as JSON (431 and 400)."""

    def read_request_headers(self):
        try:
            return super().read_request_headers()
        except (HeaderTooLarge, errors.MaxSizeExceeded) as exc:
            self._fault(431, 'Request Header Fields Too Large',
                        str(exc) or 'The request headers are larger than '
                        '%d bytes.' % self.server.max_request_header_size)
        except DuplicateHeader as exc:
            self._fault(400, 'Bad Request', str(exc))
        return False

    def _fault(self, code, reason, message):
        name = faults.FAULT_NAMES.get(code, faults.DEFAULT_NAME)
        body = jsonutils.dump_as_bytes(
            {name: {'code': code, 'message': message}})
        self.close_connection = True
        head = ('%s %d %s\r\nContent-Type: application/json\r\n'
                'Content-Length: %d\r\nConnection: close\r\n\r\n'
                % (self.server.protocol, code, reason, len(body)))
        try:
            self.conn.wfile.write(head.encode('latin-1') + body)
        except OSError as exc:
            if exc.args and exc.args[0] not in errors.socket_errors_to_ignore:
                raise


class _Listener(socket.socket):
    """The server's descriptor of the listening socket. Once another
    worker of this service ended the listening (see ``_Server.stop``),
    accept() meets EINVAL: read as "nothing to accept", after a pause so
    that cheroot's selector does not spin until this worker stops too."""

    def accept(self):
        try:
            return super().accept()
        except OSError as exc:
            if exc.errno != errno.EINVAL:
                raise
            time.sleep(0.05)
            raise BlockingIOError(errno.EAGAIN, 'not listening') from exc


class _Server(cheroot_wsgi.Server):
    """cheroot's WSGI server, able to serve a socket made elsewhere (by
    the parent process before it forked the workers, or by systemd), and
    stopping without resetting a connection.

    ``ends_listening`` (a callable, asked as the server stops) says
    whether stopping ends the listening itself: True when no other
    process will accept from the socket again (the whole service stops).
    The connections the kernel queued are then accepted and served, and
    the socket stops listening, in every process holding it, so that a
    later client is refused (it may retry: nothing reached the service)
    instead of being queued, and reset when the last holder exits. False
    when systemd holds the socket, or only this worker stops: the queue
    waits for the next process.
    """

    listening_socket = None
    ends_listening = None

    def bind(self, family, type, proto=0):
        if self.listening_socket is None:
            return super().bind(family, type, proto)
        # A duplicate: stopping this server (SIGHUP restarts it, and a
        # worker stops before it exits) closes only its own descriptor.
        sock = self.socket = _Listener(
            fileno=os.dup(self.listening_socket.fileno()))
        self.bind_addr = self.resolve_real_bind_addr(sock)
        return sock

    def stop(self):
        """Stop accepting, serve what was accepted or queued (within
        ``shutdown_timeout``), then return."""
        if (self.ready and self.socket is not None and
                (self.ends_listening is None or self.ends_listening())):
            self._end_listening()
        super().stop()

    def _end_listening(self):
        sock = self.socket
        try:
            sock.setblocking(False)
            while True:
                try:
                    conn, addr = sock.accept()
                except (BlockingIOError, InterruptedError):
                    break
                self._serve_accepted(conn, addr)
            # Right after the queue is empty: stops the kernel from
            # queueing more, for every descriptor of this socket.
            sock.shutdown(socket.SHUT_RD)
        except OSError as exc:
            # Not listening any more (another worker ended it first).
            LOG.debug('Ending the listening: %s', exc)

    def _serve_accepted(self, sock, addr):
        sock.settimeout(self.timeout)
        conn = self.ConnectionClass(self, sock, makefile.MakeFile)
        if isinstance(addr, tuple) and len(addr) >= 2:
            conn.remote_addr, conn.remote_port = addr[0], addr[1]
        conn.ssl_env = {}
        self.process_conn(conn)


def make_server(bind_addr, app, sock=None, ends_listening=None, **kwargs):
    """A cheroot WSGI server for ``app`` with the checks above, limits
    taken from ``[api]``; ``kwargs`` go to cheroot's Server. With
    ``sock``, a listening socket, it serves that instead of binding
    ``bind_addr``; ``ends_listening``: see ``_Server`` (None: stopping
    always ends the listening)."""
    max_line = CONF.api.max_header_line
    request_class = type('NovaLiteRequest', (CheckedRequest,), {
        'header_reader': CheckedHeaderReader(max_line)})
    connection_class = type('NovaLiteConnection',
                            (cheroot_server.HTTPConnection,),
                            {'RequestHandlerClass': request_class})
    server = _Server(bind_addr, app, **kwargs)
    server.listening_socket = sock
    server.ends_listening = ends_listening
    server.ConnectionClass = connection_class
    server.max_request_header_size = max(CONF.api.max_request_header_size,
                                         max_line)
    return server
