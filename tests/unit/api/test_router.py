"""Routing: with and without /{project_id}, 404, 405, microversions."""

import pytest

from nova_lite.api import api_version
from nova_lite.api import router
from nova_lite.api import wsgi
from tests.unit.api import conftest


def _echo(req, **kwargs):
    return wsgi.json_response({'args': kwargs,
                               'version': str(req.api_version_request),
                               'url_project': req.environ.get(
                                   wsgi.URL_PROJECT_KEY)})


ROUTES = {
    '': {'GET': _echo},
    '/things': {'GET': _echo, 'POST': _echo},
    '/things/detail': {'GET': _echo},
    '/things/{thing_id}': {'GET': _echo, 'DELETE': _echo},
}


@pytest.fixture
def app():
    return conftest.WithContext(router.APIRouter(ROUTES),
                                conftest.make_context(project_id='p1'))


@pytest.mark.parametrize('path', ['/things', '/p1/things'])
def test_with_and_without_project_id(app, path):
    resp = conftest.call(app, 'GET', path)
    assert resp.status_int == 200
    assert resp.json['args'] == {}
    expected = 'p1' if path.startswith('/p1') else None
    assert resp.json['url_project'] == expected


def test_route_arguments(app):
    resp = conftest.call(app, 'DELETE', '/p1/things/abc')
    assert resp.json['args'] == {'thing_id': 'abc'}
    resp = conftest.call(app, 'GET', '/things/detail')
    assert resp.json['args'] == {}


def test_other_project_in_url_is_400(app):
    resp = conftest.call(app, 'GET', '/p2/things')
    assert resp.status_int == 400
    assert "doesn't match" in resp.json['badRequest']['message']


def test_unknown_path_is_404(app):
    for path in ('/nothing', '/p1/nothing', '/things/1/2', '/p2'):
        resp = conftest.call(app, 'GET', path)
        assert resp.status_int == 404, path
        assert resp.json['itemNotFound']['code'] == 404


def test_version_document_below_the_project(app):
    resp = conftest.call(app, 'GET', '/p1')
    assert resp.status_int == 200


def test_wrong_method_is_405(app):
    resp = conftest.call(app, 'PUT', '/p1/things')
    assert resp.status_int == 405
    assert resp.headers['Allow'] == 'GET, POST'
    assert 'badMethod' in resp.json


def test_version_headers_on_success_and_fault(app):
    for path in ('/things', '/nothing'):
        resp = conftest.call(app, 'GET', path)
        assert resp.headers['OpenStack-API-Version'] == 'compute 2.1'
        assert resp.headers['X-OpenStack-Nova-API-Version'] == '2.1'
        assert 'X-OpenStack-Nova-API-Version' in resp.headers['Vary']


def test_requested_version_reaches_handler(app):
    resp = conftest.call(app, 'GET', '/things', headers={
        'OpenStack-API-Version': 'compute latest'})
    assert resp.json['version'] == api_version.VERSIONS[-1]
    resp = conftest.call(app, 'GET', '/things', headers={
        'X-OpenStack-Nova-API-Version': '2.2'})
    assert resp.json['version'] == '2.2'
    assert resp.headers['OpenStack-API-Version'] == 'compute 2.2'
    assert resp.headers['X-OpenStack-Nova-API-Version'] == '2.2'


def test_unsupported_version_is_406(app):
    resp = conftest.call(app, 'GET', '/things', headers={
        'OpenStack-API-Version': 'compute 2.999'})
    assert resp.status_int == 406
    assert 'not supported' in resp.json['notAcceptable']['message']
    assert 'Vary' in resp.headers
    assert 'OpenStack-API-Version' not in resp.headers


def test_malformed_version_is_400(app):
    resp = conftest.call(app, 'GET', '/things', headers={
        'X-OpenStack-Nova-API-Version': 'two'})
    assert resp.status_int == 400


def test_real_route_table_covers_project_prefix():
    mapper = router.make_mapper(router.ROUTES)
    for path in ('/servers/detail', '/p/servers/detail'):
        match = mapper.match(path, environ={'REQUEST_METHOD': 'GET'})
        assert match['_handler'].__name__ == 'detail'
