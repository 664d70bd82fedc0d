"""The real api-paste.ini, loaded by nova_lite.wsgi.api, end to end.

Handlers' collaborators are faked; the pipeline (request id, faultwrap,
sizelimit, auth, ratelimit, router) is the shipped one.
"""

import os

import pytest
import webob

from nova_lite import exception
from nova_lite import objects
from nova_lite.wsgi import api as wsgi_api
from tests.unit.api import fakes


@pytest.fixture(autouse=True)
def flavors(monkeypatch):
    monkeypatch.setattr(objects.FlavorList, 'get_all', classmethod(
        lambda cls, ctxt, filters=None, **kw: objects.FlavorList(
            objects=[fakes.flavor()])))


def _get(app, path, token='demo:proj1', method='GET', **kwargs):
    req = webob.Request.blank(path, method=method, **kwargs)
    if token:
        req.headers['X-Auth-Token'] = token
    return req.get_response(app)


def test_paste_file_is_found_in_the_tree():
    path = wsgi_api.find_paste_config()
    assert path.endswith(os.path.join('etc', 'nova_lite', 'api-paste.ini'))


def test_paste_file_next_to_the_config(tmp_path, conf):
    (tmp_path / 'custom-paste.ini').write_text('[app:x]\n')
    (tmp_path / 'nova_lite.conf').write_text('[api]\n')
    from nova_lite.conf import CONF
    CONF(['--config-file', str(tmp_path / 'nova_lite.conf')],
         project='nova_lite', default_config_files=[])
    conf.config(group='api', api_paste_config='custom-paste.ini')
    assert wsgi_api.find_paste_config() == str(tmp_path /
                                               'custom-paste.ini')


def test_missing_paste_file_is_a_clear_error(conf):
    conf.config(group='api', api_paste_config='/nonexistent/paste.ini')
    with pytest.raises(exception.ConfigInvalid, match='api_paste_config'):
        wsgi_api.find_paste_config()


class TestNoAuthPipeline:
    @pytest.fixture
    def app(self, conf):
        conf.config(group='api', auth_strategy='noauth2',
                    rate_limits='(GET, *, .*, 2, MINUTE)')
        return wsgi_api.load_app()

    def test_versions_need_no_token(self, app):
        assert _get(app, '/', token=None).status_int == 200
        resp = _get(app, '/v2.1', token=None)
        assert resp.json['version']['id'] == 'v2.1'

    def test_api_needs_a_token(self, app):
        resp = _get(app, '/v2.1/flavors', token=None)
        assert resp.status_int == 401
        assert resp.headers['x-openstack-request-id'].startswith('req-')
        assert resp.headers['x-compute-request-id'] == (
            resp.headers['x-openstack-request-id'])

    def test_request_reaches_handler(self, app):
        for path in ('/v2.1/flavors', '/v2.1/proj1/flavors'):
            resp = _get(app, path, token='u%s:proj1' % len(path))
            assert resp.status_int == 200
            assert resp.json['flavors'][0]['id'] == '1'
            assert resp.headers['OpenStack-API-Version'] == 'compute 2.1'

    def test_rate_limited(self, app):
        assert _get(app, '/v2.1/flavors').status_int == 200
        assert _get(app, '/v2.1/flavors').status_int == 200
        resp = _get(app, '/v2.1/flavors')
        assert resp.status_int == 429
        assert int(resp.headers['Retry-After']) > 0
        assert 'overLimit' in resp.json
        # Another user has their own bucket.
        assert _get(app, '/v2.1/flavors', token='x:y').status_int == 200

    def test_body_too_large(self, app, conf):
        conf.config(group='api', max_request_body_size=16)
        resp = _get(app, '/v2.1/flavors', method='POST',
                    body=b'{"flavor": "' + b'x' * 32 + b'"}')
        assert resp.status_int == 413


def test_rate_limit_false_drops_the_limiter(conf):
    conf.config(group='api', rate_limit=False,
                rate_limits='(GET, *, .*, 1, MINUTE)')
    app = wsgi_api.load_app()
    for _ in range(3):
        assert _get(app, '/v2.1/flavors').status_int == 200


def test_bad_rate_limits_fail_at_load(conf):
    conf.config(group='api', rate_limits='(GET, *, .*, 1, FORTNIGHT)')
    with pytest.raises(exception.ConfigInvalid, match='rate_limits'):
        wsgi_api.load_app()


def test_keystone_pipeline_uses_authtoken(conf):
    conf.config(group='api', auth_strategy='keystone')
    wsgi_api.load_app()
    # Loading registered [keystone_authtoken]; point it somewhere so the
    # 401 can name the identity service.
    conf.config(group='keystone_authtoken',
                www_authenticate_uri='http://keystone.example/identity')
    app = wsgi_api.load_app()
    # authtoken answers a request without a token itself (no keystone
    # round trip); the versions stay open.
    assert _get(app, '/v2.1/flavors', token=None).status_int == 401
    assert _get(app, '/', token=None).status_int == 200


def test_application_is_built_on_first_access(monkeypatch):
    made = []
    monkeypatch.setattr(wsgi_api, '_application', None)
    monkeypatch.setattr(wsgi_api, 'init_application',
                        lambda: made.append(1) or 'the-app')
    assert wsgi_api.application == 'the-app'
    assert wsgi_api.application == 'the-app'
    assert made == [1]
    with pytest.raises(AttributeError):
        wsgi_api.no_such_thing  # noqa: B018


def test_config_files_from_the_environment(monkeypatch):
    monkeypatch.setenv(wsgi_api.CONFIG_FILES_ENV, '/a.conf; /b.conf;')
    assert wsgi_api._config_files() == ['/a.conf', '/b.conf']
    monkeypatch.delenv(wsgi_api.CONFIG_FILES_ENV)
    assert wsgi_api._config_files() is None


def test_links_follow_the_proxy_when_enabled(conf):
    app = wsgi_api.load_app()
    headers = {'X-Forwarded-Proto': 'https'}
    resp = _get(app, '/', token=None, headers=headers)
    assert resp.json['versions'][0]['links'][0]['href'].startswith(
        'http://')
    conf.config(group='oslo_middleware', enable_proxy_headers_parsing=True)
    resp = _get(app, '/', token=None, headers=headers)
    assert resp.json['versions'][0]['links'][0]['href'].startswith(
        'https://')
