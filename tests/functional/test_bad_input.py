"""Bad requests through the real pipeline leave no trace, and rate limits
hold per user.

One deployment (PostgreSQL, RabbitMQ, the four daemons) with a small
``[api] max_request_body_size`` and the rate limiter on, the user
"limited" allowed two POSTs a minute. Every refused request is checked
against the database: no instance, request spec, consumer, allocation,
flavor or fault row appears.
"""

import contextlib
import http.client
import json
import urllib.parse

import pytest

from tests.functional import conftest
from tests.functional import deployment

MAX_BODY = 2048
LIMITED_USER = 'limited'
# Rows a request could leave behind if it got further than it should.
TABLES = ('instances', 'request_specs', 'consumers', 'allocations',
          'flavors', 'instance_faults')
FLAVOR = {'flavor': {'name': 'tiny', 'id': 'tiny', 'ram': 512,
                     'vcpus': 1, 'disk': 1}}


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    with conftest.deployed(
        module_tmp, request,
        computes={'compute1': {'node_count': 2}},
        conf={'api': {'rate_limit': 'true',
                      'max_request_body_size': MAX_BODY,
                      'user_rate_limits':
                          '%s=(POST, *, .*, 2, MINUTE)' % LIMITED_USER}}) as d:
        d.image_id = d.register_image()
        status, _, body = d.admin_api.post('/flavors', FLAVOR)
        assert status == 200, body
        yield d


def _row_counts(deploy):
    return {table: deploy.sql('SELECT count(*) FROM %s' % table)[0][0]
            for table in TABLES}


@contextlib.contextmanager
def nothing_written(deploy):
    """Assert the block changed no row of TABLES."""
    before = _row_counts(deploy)
    yield
    assert _row_counts(deploy) == before


def _server(deploy, **overrides):
    server = {'name': 'vm', 'imageRef': deploy.image_id,
              'flavorRef': 'tiny'}
    server.update(overrides)
    return {'server': server}


def _fault(body, name, code):
    """The message of a Nova-shaped fault ``{name: {code, message}}``."""
    assert isinstance(body, dict) and list(body) == [name], body
    assert body[name]['code'] == code, body
    return body[name]['message']


def test_malformed_json_is_400(deploy):
    with nothing_written(deploy):
        status, _, body = deploy.api.post('/servers',
                                          raw=b'{"server": {"name": ')
    assert status == 400
    assert _fault(body, 'badRequest', 400) == 'Malformed request body'


def test_unknown_flavor_is_400_naming_it(deploy):
    with nothing_written(deploy):
        status, _, body = deploy.api.post(
            '/servers', _server(deploy, flavorRef='no-such-flavor'))
    assert status == 400
    assert 'no-such-flavor' in _fault(body, 'badRequest', 400)


def test_unknown_image_is_400_naming_it(deploy):
    image = '0b5c3a4e-5f57-4b4f-9d0d-2a0b6f0c9d11'
    with nothing_written(deploy):
        status, _, body = deploy.api.post(
            '/servers', _server(deploy, imageRef=image))
    assert status == 400
    assert image in _fault(body, 'badRequest', 400)


def test_missing_name_is_400(deploy):
    body = _server(deploy)
    del body['server']['name']
    with nothing_written(deploy):
        status, _, body = deploy.api.post('/servers', body)
    assert status == 400
    assert "'name'" in _fault(body, 'badRequest', 400)


@pytest.mark.parametrize('counts', [
    {'min_count': 0}, {'max_count': 0}, {'min_count': -1},
    {'max_count': -3}, {'min_count': '0'},
    {'min_count': 3, 'max_count': 2},
], ids=['min0', 'max0', 'min-1', 'max-3', 'min-str0', 'min>max'])
def test_bad_counts_are_400(deploy, counts):
    with nothing_written(deploy):
        status, _, body = deploy.api.post('/servers',
                                          _server(deploy, **counts))
    assert status == 400, body
    assert 'count' in _fault(body, 'badRequest', 400)


def test_body_over_max_request_body_size_is_413(deploy):
    big = _server(deploy, user_data='x' * (MAX_BODY + 1))
    with nothing_written(deploy):
        status, _, body = deploy.api.post('/servers', big)
    assert status == 413
    _fault(body, 'requestEntityTooLarge', 413)


def test_chunked_body_over_max_request_body_size_is_413(deploy):
    """Without a Content-Length the limit is enforced while reading."""
    payload = json.dumps(_server(deploy, user_data='x' * (MAX_BODY * 4)))
    url = urllib.parse.urlsplit(deploy.api.endpoint)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    with nothing_written(deploy):
        try:
            conn.request('POST', url.path + '/servers',
                         body=iter([payload.encode()]),
                         headers={'X-Auth-Token': 'demo:demo',
                                  'Content-Type': 'application/json'},
                         encode_chunked=True)
            resp = conn.getresponse()
            status, body = resp.status, json.loads(resp.read())
        finally:
            conn.close()
    assert status == 413, body
    _fault(body, 'requestEntityTooLarge', 413)


@pytest.mark.parametrize('token', [None, 'not a token', 'a:b:c!'],
                         ids=['missing', 'spaces', 'bad-chars'])
def test_bad_or_missing_token_is_401(deploy, token):
    with nothing_written(deploy):
        status, headers, body = deploy.api.as_user(token).post(
            '/servers', _server(deploy))
    assert status == 401
    _fault(body, 'unauthorized', 401)
    assert 'WWW-Authenticate' in headers


def test_non_admin_creating_a_flavor_is_403(deploy):
    flavor = {'flavor': {'name': 'mine', 'id': 'mine', 'ram': 512,
                         'vcpus': 1, 'disk': 1}}
    with nothing_written(deploy):
        status, _, body = deploy.api.post('/flavors', flavor)
    assert status == 403
    assert 'os-flavor-manage:create' in _fault(body, 'forbidden', 403)
    assert deploy.api.get('/flavors/mine')[0] == 404


@pytest.mark.parametrize('server_id', [
    '6f1b0d3c-3d0e-4a53-9f5e-8f4f0a6a2b7c', 'not-a-uuid'])
def test_unknown_server_is_404(deploy, server_id):
    with nothing_written(deploy):
        status, _, body = deploy.api.get('/servers/%s' % server_id)
    assert status == 404
    assert server_id in _fault(body, 'itemNotFound', 404)


def _instances_of(deploy, user):
    return [row.uuid for row in deploy.sql(
        'SELECT uuid FROM instances WHERE user_id = :user', user=user)]


def test_rate_limit_third_post_is_429_for_that_user_only(deploy):
    """Runs last: it boots servers, which write rows asynchronously."""
    limited = deploy.api.as_user('%s:limited' % LIMITED_USER)
    for index in range(2):
        status, _, body = limited.post(
            '/servers', _server(deploy, name='rl-%d' % index))
        assert status == 202, body
    before = _row_counts(deploy)
    status, headers, body = limited.post('/servers',
                                         _server(deploy, name='rl-2'))
    assert status == 429, body
    assert 1 <= int(headers['Retry-After']) <= 60
    message = _fault(body, 'overLimit', 429)
    assert 'rate-limited' in message
    assert body['overLimit']['retryAfter'] == headers['Retry-After']
    assert 'Only 2 POST request(s)' in body['overLimit']['details']
    assert _row_counts(deploy)['instances'] == before['instances']
    assert len(_instances_of(deploy, LIMITED_USER)) == 2
    # GETs are not limited for that user; other users keep their own
    # buckets.
    assert limited.get('/servers')[0] == 200
    # /limits shows the user's buckets: nothing left of the two POSTs.
    status, _, body = limited.get('/limits')
    assert status == 200, body
    [group] = body['limits']['rate']
    assert [(limit['verb'], limit['value'], limit['remaining'])
            for limit in group['limit']] == [('POST', 2, 0)]
    status, _, body = deploy.api.as_user('other:other').post(
        '/servers', _server(deploy, name='other'))
    assert status == 202, body

    def all_active():
        rows = deploy.sql("SELECT vm_state FROM instances WHERE deleted = 0")
        states = [row.vm_state for row in rows]
        assert 'error' not in states, deploy.logs()
        return len(states) == 3 and set(states) == {'active'}

    deployment.wait_for(all_active, timeout=60, message='3 active servers')
