"""Malformed requests that used to reach a 500 are 400s saying why.

Each request here must be refused before anything is looked up or
written: the objects' database methods are replaced by ones that fail the
test if they are called.
"""

import json

import pytest

from nova_lite import objects
from nova_lite.api.handlers import aggregates
from nova_lite.api.handlers import server_metadata
from nova_lite.api.handlers import server_tags
from nova_lite.api.middleware import faultwrap
from nova_lite.api import router
from tests.unit.api import conftest

ADMIN = conftest.make_context('admin', 'ops')
INT64_PLUS = str(2 ** 64 + 1)
UUID = '9d7b7f3a-3b6c-4a44-9d1f-2b1c3d4e5f60'


@pytest.fixture(autouse=True)
def nothing_reached(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError('a bad request reached the database')
    for cls, names in ((objects.Flavor, ('create', 'get_by_flavor_id')),
                       (objects.FlavorList, ('get_all',))):
        for name in names:
            monkeypatch.setattr(cls, name, boom)
    monkeypatch.setattr(aggregates.api, 'get', boom)
    monkeypatch.setattr(aggregates.api, 'create', boom)


def _message(resp):
    assert resp.status_int == 400, resp.body
    return resp.json['badRequest']['message']


def _flavor(**values):
    flavor = {'name': 'f', 'ram': 512, 'vcpus': 1, 'disk': 1}
    flavor.update(values)
    return {'flavor': flavor}


def test_deeply_nested_body_is_malformed(api):
    # The JSON parser recursed past the interpreter's limit: RecursionError.
    raw = b'[' * 5000 + b']' * 5000
    resp = api(ADMIN)('POST', '/flavors', raw)
    assert 'nested too deeply' in _message(resp)


def test_nesting_the_parser_accepts_is_still_validated(api):
    nested = {}
    for _ in range(400):
        nested = {'a': nested}
    resp = api(ADMIN)('POST', '/flavors', _flavor(extra=nested))
    assert 'extra' in _message(resp)


@pytest.mark.parametrize('field', ['ram', 'vcpus', 'disk', 'swap',
                                   'OS-FLV-EXT-DATA:ephemeral'])
@pytest.mark.parametrize('value', [INT64_PLUS, 2 ** 64 + 1, '2147483648'])
def test_flavor_integers_beyond_the_column(api, field, value):
    message = _message(api(ADMIN)('POST', '/flavors',
                                  _flavor(**{field: value})))
    assert field in message and 'maximum' in message


@pytest.mark.parametrize('param', ['minRam', 'minDisk'])
@pytest.mark.parametrize('path', ['/flavors', '/flavors/detail'])
def test_flavor_filters_beyond_the_column(api, param, path):
    message = _message(api()('GET', '%s?%s=%s' % (path, param, INT64_PLUS)))
    assert param in message and 'maximum' in message


@pytest.mark.parametrize('query', ['limit=%s' % INT64_PLUS,
                                   'offset=%s' % INT64_PLUS])
def test_server_group_paging_beyond_the_column(api, query):
    assert 'maximum' in _message(api()('GET', '/os-server-groups?' + query))


@pytest.mark.parametrize('method,suffix,body', [
    ('GET', '', None), ('DELETE', '', None),
    ('PUT', '', {'aggregate': {'name': 'x'}}),
    ('POST', '/action', {'add_host': {'host': 'h'}}),
])
@pytest.mark.parametrize('agg_id', [INT64_PLUS, '2147483648', 'abc', '-1'])
def test_aggregate_id_must_be_a_database_integer(api, method, suffix, body,
                                                 agg_id):
    resp = api(ADMIN)(method, '/os-aggregates/%s%s' % (agg_id, suffix),
                      body)
    assert 'Aggregate id %s' % agg_id in _message(resp)


@pytest.mark.parametrize('name', ['a\x00b', 'tab\there', 'line\nbreak',
                                  'bell\x07', 'zero\u200bwidth',
                                  'para\u2029sep'])
@pytest.mark.parametrize('path,body', [
    ('/flavors', lambda n: _flavor(name=n)),
    ('/os-aggregates', lambda n: {'aggregate': {'name': n}}),
])
def test_names_with_control_characters(api, name, path, body):
    message = _message(api(ADMIN)('POST', path, body(name)))
    assert 'name' in message


def test_printable_names_pass_validation(api, monkeypatch):
    created = []
    monkeypatch.setattr(objects.Flavor, 'create',
                        lambda self: created.append(self.name))
    resp = api(ADMIN)('POST', '/flavors', _flavor(name='Größe 1 ü'))
    assert resp.status_int == 200, resp.body
    assert created == ['Größe 1 ü']


def test_control_character_message_names_the_character(api):
    message = _message(api(ADMIN)('POST', '/flavors', _flavor(name='a\x07')))
    assert 'U+0007' in message and 'printable' in message


@pytest.mark.parametrize('path,part', [
    ('/v2.1/flavors/%ff', 'path'),
    ('/v2.1/os-aggregates/%c3%28', 'path'),
    ('/v2.1/flavors?name=%ff', 'query string'),
])
def test_non_utf8_url_is_400(path, part):
    app = faultwrap.FaultWrapper(conftest.WithContext(router.APIRouter(),
                                                      ADMIN))
    resp = conftest.call(app, 'GET', path[len('/v2.1'):])
    # call() mounts below /v2.1; webob percent-decodes the path as WSGI
    # servers do.
    assert 'not valid UTF-8' in _message(resp)
    assert part in _message(resp)


@pytest.mark.parametrize('path,part', [
    # Both found by the fuzzing run (tox -e fuzz): PostgreSQL refused the
    # NUL in a filter, and the API answered 500.
    ('/os-services?binary=nova%00compute', 'query string'),
    ('/os-quota-sets/p1/detail?user_id=a%00b', 'query string'),
    ('/servers/a%00b', 'path'),
])
def test_nul_in_url_is_400(path, part):
    app = faultwrap.FaultWrapper(conftest.WithContext(router.APIRouter(),
                                                      ADMIN))
    resp = conftest.call(app, 'GET', path)
    assert resp.status_int == 400
    assert 'NUL character' in _message(resp)
    assert part in _message(resp)


def test_json_fault_bodies_are_json():
    app = faultwrap.FaultWrapper(conftest.WithContext(router.APIRouter(),
                                                      ADMIN))
    resp = conftest.call(app, 'GET', '/flavors/%ff')
    assert json.loads(resp.body)['badRequest']['code'] == 400


@pytest.mark.parametrize('path,body', [
    # Found by the fuzzing run at 2.100: PostgreSQL refused to store the
    # NUL in a tag, and the API answered 500.
    ('/servers/%s/tags' % UUID, {'tags': ['ok', 'a\x00b']}),
    ('/servers/%s/metadata' % UUID, {'metadata': {'k': '\x00'}}),
    ('/servers/%s/metadata' % UUID, {'metadata': {'k\x00': 'v'}}),
])
def test_nul_in_body_is_400(api, at_version, monkeypatch, path, body):
    def boom(*args, **kwargs):
        raise AssertionError('a bad request reached the database')
    monkeypatch.setattr(server_tags.compute, 'get', boom)
    monkeypatch.setattr(server_metadata.compute, 'get', boom)
    resp = at_version(api(ADMIN), '2.26')('PUT', path, body)
    assert 'NUL character' in _message(resp)


def test_nul_in_a_name_is_named_as_any_control_character(api):
    # As the name format's message does (tests/functional/
    # test_robust_input.py looks for it).
    resp = api(ADMIN)('POST', '/os-aggregates',
                      {'aggregate': {'name': 'rack\x001'}})
    assert 'U+0000' in _message(resp)
