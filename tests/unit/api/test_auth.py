"""noauth2, keystonecontext and the pipeline selector."""

import json

import pytest
import webob

from nova_lite.api.middleware import auth
from nova_lite.api import wsgi


class Capture:
    """An app that remembers the context it was called with."""

    def __init__(self):
        self.context = None

    def __call__(self, environ, start_response):
        self.context = environ.get(wsgi.CONTEXT_KEY)
        start_response('200 OK', [('Content-Type', 'text/plain')])
        return [b'ok']


def _send(app, headers=None, environ=None):
    req = webob.Request.blank('/servers', environ=environ)
    for name, value in (headers or {}).items():
        req.headers[name] = value
    return req.get_response(app)


class TestNoAuth:
    def setup_method(self):
        self.inner = Capture()
        self.app = auth.NoAuthMiddleware(self.inner)

    def test_user_and_project(self):
        resp = _send(self.app, {'X-Auth-Token': 'alice:proj1'})
        assert resp.status_int == 200
        ctx = self.inner.context
        assert (ctx.user_id, ctx.project_id) == ('alice', 'proj1')
        assert sorted(ctx.roles) == ['member', 'reader']
        assert not ctx.is_admin

    def test_no_colon_means_project_is_user(self):
        _send(self.app, {'X-Auth-Token': 'bob'})
        assert self.inner.context.project_id == 'bob'

    def test_admin_gets_admin_roles(self):
        _send(self.app, {'X-Auth-Token': 'admin:ops'})
        ctx = self.inner.context
        assert sorted(ctx.roles) == ['admin', 'member', 'reader']
        assert ctx.is_admin

    def test_request_id_reaches_the_context(self):
        _send(self.app, {'X-Auth-Token': 'a:b'},
              environ={'openstack.request_id': 'req-42'})
        assert self.inner.context.request_id == 'req-42'

    def test_missing_token_is_401(self):
        resp = _send(self.app)
        assert resp.status_int == 401
        assert resp.json['unauthorized']['code'] == 401
        assert self.inner.context is None

    @pytest.mark.parametrize('token', ['', ':', 'user:', ':proj',
                                       'us er:p', 'u:p:q', 'u;drop:p'])
    def test_malformed_token_is_401(self, token):
        resp = _send(self.app, {'X-Auth-Token': token})
        assert resp.status_int == 401
        assert 'Malformed' in resp.json['unauthorized']['message']
        assert self.inner.context is None


class TestKeystoneContext:
    def setup_method(self):
        self.inner = Capture()
        self.app = auth.NovaKeystoneContext(self.inner)

    def test_headers_become_the_context(self):
        catalog = [{'type': 'compute', 'endpoints': []}]
        resp = _send(self.app, {
            'X-User-Id': 'u-1', 'X-User-Name': 'alice',
            'X-Project-Id': 'p-1', 'X-Project-Name': 'demo',
            'X-Roles': 'member, reader', 'X-Auth-Token': 'tok',
            'X-Service-Catalog': json.dumps(catalog)})
        assert resp.status_int == 200
        ctx = self.inner.context
        assert (ctx.user_id, ctx.project_id) == ('u-1', 'p-1')
        assert (ctx.user_name, ctx.project_name) == ('alice', 'demo')
        assert ctx.roles == ['member', 'reader']
        assert ctx.auth_token == 'tok'
        assert ctx.service_catalog == catalog

    def test_legacy_headers(self):
        _send(self.app, {'X-User': 'u-2', 'X-Tenant-Id': 'p-2',
                         'X-Role': 'admin'})
        ctx = self.inner.context
        assert (ctx.user_id, ctx.project_id) == ('u-2', 'p-2')
        assert ctx.is_admin

    def test_no_user_is_401(self):
        resp = _send(self.app, {'X-Project-Id': 'p'})
        assert resp.status_int == 401
        assert self.inner.context is None

    def test_bad_catalog_is_500(self):
        resp = _send(self.app, {'X-User-Id': 'u', 'X-Project-Id': 'p',
                                'X-Service-Catalog': '{not json'})
        assert resp.status_int == 500
        assert 'catalog' in resp.json['computeFault']['message']

    def test_forwarded_for_only_when_enabled(self, conf):
        headers = {'X-User-Id': 'u', 'X-Project-Id': 'p',
                   'X-Forwarded-For': '203.0.113.9, 10.0.0.1'}
        env = {'REMOTE_ADDR': '10.0.0.1'}
        _send(self.app, headers, environ=env)
        assert self.inner.context.remote_address == '10.0.0.1'
        conf.config(group='api', use_forwarded_for=True)
        _send(self.app, headers, environ=env)
        assert self.inner.context.remote_address == '203.0.113.9'


class FakeLoader:
    def __init__(self):
        self.filters = []

    def get_filter(self, name):
        def make(app):
            return ('%s(%s)' % (name, app))
        self.filters.append(name)
        return make

    def get_app(self, name):
        return name


PIPELINES = {
    'noauth2': 'request_id faultwrap sizelimit noauth2 ratelimit app',
    'keystone': 'request_id faultwrap sizelimit authtoken keystonecontext '
                'ratelimit app',
    'keystone_nolimit': 'request_id faultwrap sizelimit authtoken '
                        'keystonecontext app',
}


class TestPipelineFactory:
    @pytest.mark.parametrize('strategy, rate_limit, expected', [
        ('noauth2', True,
         'request_id(faultwrap(sizelimit(noauth2(ratelimit(app)))))'),
        ('noauth2', False,
         'request_id(faultwrap(sizelimit(noauth2(app))))'),
        ('keystone', True, 'request_id(faultwrap(sizelimit(authtoken('
                           'keystonecontext(ratelimit(app))))))'),
        ('keystone', False, 'request_id(faultwrap(sizelimit(authtoken('
                            'keystonecontext(app)))))'),
    ])
    def test_picks_pipeline(self, conf, strategy, rate_limit, expected):
        conf.config(group='api', auth_strategy=strategy,
                    rate_limit=rate_limit)
        assert auth.pipeline_factory(FakeLoader(), {},
                                     **PIPELINES) == expected

    def test_missing_pipeline(self):
        with pytest.raises(ValueError, match='noauth2'):
            auth.pipeline_factory(FakeLoader(), {},
                                  keystone=PIPELINES['keystone'])
