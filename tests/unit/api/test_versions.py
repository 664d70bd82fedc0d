"""Version documents and the URL map that serves them without auth."""

import webob

from nova_lite.api import api_version
from nova_lite.api import urlmap
from nova_lite.api import versions


def _get(app, path, script_name=''):
    req = webob.Request.blank(path, base_url='http://api.example:8774')
    req.script_name = script_name
    return req.get_response(app)


def test_versions_list():
    resp = _get(versions.Versions(), '/')
    assert resp.status_int == 200
    [v21] = resp.json['versions']
    assert v21['id'] == 'v2.1'
    assert v21['status'] == 'CURRENT'
    assert v21['min_version'] == '2.1'
    assert v21['version'] == api_version.VERSIONS[-1]
    assert v21['links'] == [{'rel': 'self',
                             'href': 'http://api.example:8774/v2.1/'}]


def test_versions_list_honours_a_mount_point():
    resp = _get(versions.Versions(), '/', script_name='/compute')
    assert resp.json['versions'][0]['links'][0]['href'] == (
        'http://api.example:8774/compute/v2.1/')


def test_v21_document():
    resp = _get(versions.VersionV21(), '/', script_name='/v2.1')
    assert resp.status_int == 200
    doc = resp.json['version']
    assert doc['id'] == 'v2.1'
    assert doc['status'] == 'CURRENT'
    assert (doc['min_version'], doc['version']) == (
        '2.1', api_version.VERSIONS[-1])
    assert doc['links'][0] == {'rel': 'self',
                               'href': 'http://api.example:8774/v2.1/'}
    assert doc['media-types'][0]['base'] == 'application/json'
    assert resp.headers['OpenStack-API-Version'] == 'compute 2.1'
    assert 'OpenStack-API-Version' in resp.headers['Vary']


def test_versions_wrong_method():
    req = webob.Request.blank('/', method='DELETE')
    assert req.get_response(versions.Versions()).status_int == 405


class Named:
    def __init__(self, name):
        self.name = name

    def __call__(self, environ, start_response):
        start_response('200 OK', [('Content-Type', 'text/plain')])
        return [('%s %s|%s' % (self.name, environ['SCRIPT_NAME'],
                               environ['PATH_INFO'])).encode()]


class Loader:
    def get_app(self, name, global_conf=None):
        return Named(name)


def _map():
    return urlmap.urlmap_factory(Loader(), {}, **{
        '/': 'root', '/v2.1': 'doc', '/v2.1/+': 'api'})


def test_urlmap_exact_and_prefix():
    app = _map()
    assert _get(app, '/').body == b'root |/'
    assert _get(app, '').body == b'root |'
    assert _get(app, '/v2.1').body == b'doc /v2.1|'
    assert _get(app, '/v2.1/').body == b'doc /v2.1|/'
    assert _get(app, '/v2.1/servers').body == b'api /v2.1|/servers'
    assert _get(app, '/v2.1/p/servers/1').body == b'api /v2.1|/p/servers/1'


def test_urlmap_unknown_is_404():
    resp = _get(_map(), '/v3/servers')
    assert resp.status_int == 404
    assert 'itemNotFound' in resp.json
