"""GlanceClient over real HTTP (a local stand-in server on 127.0.0.1):
the catalog look-up, the token, and Glance failing in every way as 503."""

import http.server
import json
import threading
import time

import pytest

from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite.image import glance
from nova_lite.image import glance_client

ID = '70a599e0-31e7-49b7-b260-868f441e862b'


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        server = self.server
        server.seen.append((self.path, self.headers.get('X-Auth-Token')))
        if server.delay:
            time.sleep(server.delay)
        body = json.dumps(server.body).encode()
        self.send_response(server.status)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # the client gave up on a slow answer: expected here


@pytest.fixture
def stand_in():
    server = _Server(('127.0.0.1', 0), _Handler)
    server.daemon_threads = True
    server.seen, server.delay, server.status = [], 0, 200
    server.body = {'id': ID, 'name': 'cirros', 'status': 'active',
                   'created_at': '2024-01-31T12:00:00Z'}
    server.url = 'http://127.0.0.1:%d' % server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _ctx(catalog=None):
    return nl_context.RequestContext(user_id='u', project_id='p',
                                     auth_token='tok-9',
                                     service_catalog=catalog)


def _catalog(url):
    return [{'type': 'image', 'name': 'glance', 'endpoints': [
        {'interface': 'admin', 'region': 'R1', 'url': 'http://nowhere:1'},
        {'interface': 'public', 'region': 'R1', 'url': url}]}]


def test_catalog_endpoint_and_user_token(stand_in, conf):
    conf.config(region_name='R1', group='glance')
    backend = glance.GlanceBackend(client=glance_client.GlanceClient())
    image = backend.get(_ctx(_catalog(stand_in.url)), ID)
    assert image['name'] == 'cirros'
    assert stand_in.seen == [('/v2/images/%s' % ID, 'tok-9')]


def test_endpoint_override_wins_over_the_catalog(stand_in, conf):
    conf.config(endpoint_override=stand_in.url, group='glance')
    glance.GlanceBackend().get(_ctx(_catalog('http://nowhere:1')), ID)
    assert len(stand_in.seen) == 1


def test_glance_5xx_is_503(stand_in, conf):
    conf.config(endpoint_override=stand_in.url, group='glance')
    stand_in.status = 500
    with pytest.raises(exception.ImageServiceUnavailable) as err:
        glance.GlanceBackend().get(_ctx(), ID)
    assert 'answered 500' in str(err.value)


def test_glance_too_slow_is_503(stand_in, conf):
    conf.config(endpoint_override=stand_in.url, timeout=0.3,
                connect_retries=0, group='glance')
    stand_in.delay = 1.5
    with pytest.raises(exception.ImageServiceUnavailable):
        glance.GlanceBackend().get(_ctx(), ID)


def test_glance_401_is_401(stand_in, conf):
    conf.config(endpoint_override=stand_in.url, group='glance')
    stand_in.status = 401
    with pytest.raises(exception.NotAuthenticated):
        glance.GlanceBackend().get(_ctx(), ID)
