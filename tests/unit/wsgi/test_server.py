"""nova-lite-api's cheroot server: header limits and single headers.

A real server on a loopback port with a trivial application; requests are
written byte by byte over a socket, as a misbehaving client would.
"""

import json
import socket
import threading

import pytest

from nova_lite.wsgi import listener
from nova_lite.wsgi import server as wsgi_server


def _app(environ, start_response):
    body = json.dumps({'token': environ.get('HTTP_X_AUTH_TOKEN')}).encode()
    start_response('200 OK', [('Content-Type', 'application/json'),
                              ('Content-Length', str(len(body)))])
    return [body]


@pytest.fixture
def server(conf):
    conf.config(group='api', max_header_line=1024,
                max_request_header_size=4096)
    srv = wsgi_server.make_server(('127.0.0.1', 0), _app, numthreads=2)
    srv.prepare()
    thread = threading.Thread(target=srv.serve, daemon=True)
    thread.start()
    yield srv.bind_addr
    srv.stop()
    thread.join(10)


def _send(addr, headers):
    lines = ['GET /v2.1/servers HTTP/1.1', 'Host: localhost'] + headers
    raw = ('\r\n'.join(lines) + '\r\n\r\n').encode('latin-1')
    with socket.create_connection(addr, timeout=10) as sock:
        sock.sendall(raw)
        sock.shutdown(socket.SHUT_WR)
        data = b''
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b'\r\n\r\n')
    status = int(head.split(b' ', 2)[1])
    return status, head.decode('latin-1'), body


def test_ordinary_request_passes(server):
    status, _, body = _send(server, ['X-Auth-Token: a:b', 'Connection: close'])
    assert status == 200
    assert json.loads(body) == {'token': 'a:b'}


def test_long_header_line_is_431(server):
    status, head, body = _send(server, ['X-Big: ' + 'x' * 2000])
    assert status == 431
    assert 'Connection: close' in head
    fault = json.loads(body)['requestHeaderFieldsTooLarge']
    assert fault['code'] == 431 and '1024 bytes' in fault['message']


def test_too_many_header_bytes_is_431(server):
    headers = ['X-H%d: %s' % (n, 'y' * 500) for n in range(12)]
    status, _, body = _send(server, headers)
    assert status == 431
    assert json.loads(body)['requestHeaderFieldsTooLarge']['code'] == 431


@pytest.mark.parametrize('second', ['X-Auth-Token: admin:admin',
                                    'x-auth-token: demo:demo'])
def test_two_auth_tokens_are_refused(server, second):
    status, _, body = _send(server, ['X-Auth-Token: demo:demo', second])
    assert status == 400
    message = json.loads(body)['badRequest']['message']
    assert 'X-Auth-Token' in message and 'more than once' in message


# -- a graceful stop resets no connection ---------------------------------

def _ok_app(environ, start_response):
    start_response('200 OK', [('Content-Length', '2')])
    return [b'ok']


def _shared_socket_server(ends_listening=None):
    """A server on a socket a parent process made (it keeps its own
    descriptor, as the launcher's master does)."""
    sock = listener.listen('127.0.0.1', 0, 16)
    srv = wsgi_server.make_server(('127.0.0.1', 0), _ok_app, sock=sock,
                                  ends_listening=ends_listening,
                                  numthreads=2)
    srv.prepare()
    return sock, srv, sock.getsockname()[:2]


def _request(client):
    client.sendall(b'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    data = b''
    while True:
        chunk = client.recv(65536)
        if not chunk:
            return data
        data += chunk


def test_a_stopped_server_refuses_rather_than_queues(conf):
    """Regression: the API stopped accepting on SIGTERM while its socket
    kept listening (the launcher's master holds a descriptor too), so the
    kernel queued the clients that came next and reset them all when the
    process exited. Now a later client is refused: it knows nothing
    reached the service."""
    sock, srv, addr = _shared_socket_server()
    thread = threading.Thread(target=srv.serve, daemon=True)
    thread.start()
    try:
        with socket.create_connection(addr, timeout=10) as client:
            assert _request(client).startswith(b'HTTP/1.1 200')
        srv.stop()
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(addr, timeout=5).close()
    finally:
        srv.stop()
        thread.join(10)
        sock.close()


def test_stopping_serves_the_connections_queued_before(conf):
    """Clients the kernel queued but the server had not accepted yet
    when it stopped get their answer, not a reset."""
    sock, srv, addr = _shared_socket_server()
    clients = [socket.create_connection(addr, timeout=10) for _ in range(3)]
    try:
        for client in clients:
            client.sendall(b'GET / HTTP/1.1\r\nHost: x\r\n'
                           b'Connection: close\r\n\r\n')
        srv.stop()   # nothing accepted them yet: no serve() loop ran
        sock.close()
        for client in clients:
            assert _request(client).startswith(b'HTTP/1.1 200')
    finally:
        for client in clients:
            client.close()


def test_a_socket_that_outlives_the_server_keeps_listening(conf):
    """systemd's socket, or one worker stopping alone: clients wait in
    the queue for the next process."""
    sock, srv, addr = _shared_socket_server(ends_listening=lambda: False)
    srv.stop()
    try:
        with socket.create_connection(addr, timeout=5) as client:
            client.sendall(b'GET / HTTP/1.1\r\nHost: x\r\n\r\n')
            conn, _ = sock.accept()   # the next process would
            conn.close()
    finally:
        sock.close()
