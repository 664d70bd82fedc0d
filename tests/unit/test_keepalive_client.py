"""The benchmark's kept-alive client: one connection for many requests,
and a request sent again only when a reused connection was found closed."""

import http.server
import json
import threading

import pytest

from tests.unit import tool_modules


def _module():
    return tool_modules.load('keepalive_client')


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def do_POST(self):
        body = json.loads(self.rfile.read(
            int(self.headers['Content-Length'])))
        server = self.server
        # Read before answering: the test turns it on once it has the
        # answer, which must not close the connection of that answer.
        close = server.close_after_each
        server.seen.append((self.client_address, self.path,
                            self.headers['X-Auth-Token'], body))
        payload = json.dumps({'echo': body}).encode()
        self.send_response(202)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        if close:
            # What a server does to an idle kept-alive connection: it
            # closes it without a word, after the answer.
            self.close_connection = True

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Handler)
    httpd.seen = []
    httpd.close_after_each = False
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def _client(server):
    host, port = server.server_address
    return _module().KeepAliveClient('http://%s:%d/v2.1/' % (host, port),
                                     'bench:bench')


def test_requests_share_one_connection(server):
    client = _client(server)
    answers = [client.post('/servers', {'n': n}) for n in range(3)]
    client.close()
    assert [(status, body) for status, _, body in answers] == [
        (202, {'echo': {'n': n}}) for n in range(3)]
    assert [(path, token, body) for _, path, token, body in server.seen] \
        == [('/v2.1/servers', 'bench:bench', {'n': n}) for n in range(3)]
    assert len({address for address, _, _, _ in server.seen}) == 1


def test_a_connection_the_server_closed_is_opened_again(server):
    client = _client(server)
    assert client.post('/servers', {'n': 1})[0] == 202
    # The server drops the kept-alive connection while it is idle.
    server.close_after_each = True
    assert client.post('/servers', {'n': 2})[0] == 202
    assert client.post('/servers', {'n': 3})[0] == 202
    client.close()
    assert [body for _, _, _, body in server.seen] == [
        {'n': 1}, {'n': 2}, {'n': 3}]
    # The second request's connection was closed after its answer: the
    # third went out on it, found it closed and was sent on a new one.
    assert len({address for address, _, _, _ in server.seen}) == 2


def test_only_http_endpoints():
    with pytest.raises(ValueError, match='only http'):
        _module().KeepAliveClient('https://example.invalid/v2.1', 't')
