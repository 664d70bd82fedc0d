"""GlanceClient over real HTTP (a local stand-in server on 127.0.0.1):
the catalog look-up, the token, and Glance failing in every way as 503."""

import http.server
import json
import threading
import time

from keystoneauth1 import fixture as ks_fixture
from keystonemiddleware import auth_token
from keystonemiddleware import fixture as km_fixture
import pytest
import webob

from nova_lite.api.middleware import auth
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite.image import glance
from nova_lite.image import glance_client
from tests.unit.api import test_auth

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
    """An image service as keystonemiddleware passes it on: the v2 shape,
    endpoints grouped by region."""
    return [{'type': 'image', 'name': 'glance', 'endpoints': [
        {'region': 'R1', 'adminURL': 'http://nowhere:1', 'publicURL': url}]}]


def test_catalog_endpoint_and_user_token(stand_in, conf):
    conf.config(region_name='R1', group='glance')
    backend = glance.GlanceBackend(client=glance_client.GlanceClient())
    image = backend.get(_ctx(_catalog(stand_in.url)), ID)
    assert image['name'] == 'cirros'
    assert stand_in.seen == [('/v2/images/%s' % ID, 'tok-9')]


def test_the_catalog_keystonemiddleware_sets_finds_glance(stand_in, conf):
    """Regression: a v3 token's catalog reaches the context in the v2
    shape keystonemiddleware writes into X-Service-Catalog, which the
    catalog look-up read as v3: every Keystone-backed boot answered 500
    (KeyError 'interface') unless [glance] endpoint_override was set."""
    token = ks_fixture.V3Token(user_id='u', project_id='p')
    token.add_role(name='member')
    image = token.add_service('image', name='glance')
    image.add_endpoint('public', stand_in.url, region='R1')
    image.add_endpoint('admin', 'http://nowhere:1', region='R1')
    seen = test_auth.Capture()
    app = auth_token.AuthProtocol(auth.NovaKeystoneContext(seen), {
        'www_authenticate_uri': 'http://keystone:5000/v3'})
    with km_fixture.AuthTokenFixture() as tokens:
        tokens.add_token(token, token_id='tok-v3')
        req = webob.Request.blank('/servers')
        req.headers['X-Auth-Token'] = 'tok-v3'
        assert req.get_response(app).status_int == 200
    backend = glance.GlanceBackend(client=glance_client.GlanceClient())
    assert backend.get(seen.context, ID)['name'] == 'cirros'
    assert stand_in.seen == [('/v2/images/%s' % ID, 'tok-v3')]


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
