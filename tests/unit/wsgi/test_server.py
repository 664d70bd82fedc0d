"""nova-lite-api's cheroot server: header limits and single headers.

A real server on a loopback port with a trivial application; requests are
written byte by byte over a socket, as a misbehaving client would.
"""

import json
import socket
import threading

import pytest

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
