"""Requests that once answered 500 through the real daemons are 400s (or
431) that say why, and leave nothing behind.

The overflows only show against a real database driver (PostgreSQL's
bigger-than-bigint parameters) and the header limits only through the
real HTTP server, so these run against the daemons.
"""

import json
import socket
import urllib.parse

import pytest

from tests.functional import conftest

INT64_PLUS = str(2 ** 64 + 1)
TABLES = ('instances', 'flavors', 'aggregates', 'instance_groups')


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    with conftest.deployed(module_tmp, request,
                           computes={'compute1': {'node_count': 1}}) as d:
        status, _, body = d.admin_api.post('/flavors', {'flavor': {
            'name': 'tiny', 'id': '1', 'ram': 512, 'vcpus': 1, 'disk': 1}})
        assert status == 200, body
        yield d
    # No request of this module may have become a 500.
    assert 'FaultWrapper' not in d.final_logs, d.final_logs


def _counts(deploy):
    return {t: deploy.sql('SELECT count(*) FROM %s' % t)[0][0]
            for t in TABLES}


def _bad_request(deploy, reply):
    status, _, body = reply
    assert status == 400, body
    assert list(body) == ['badRequest'], body
    return body['badRequest']['message']


def _raw(deploy, request_lines):
    """Send raw request bytes; (status, headers text, parsed body)."""
    url = urllib.parse.urlsplit(deploy.api.endpoint)
    raw = ('\r\n'.join(request_lines) + '\r\n\r\n').encode('latin-1')
    with socket.create_connection((url.hostname, url.port),
                                  timeout=30) as sock:
        sock.sendall(raw)
        data = b''
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b'\r\n\r\n')
    return (int(head.split(b' ', 2)[1]), head.decode('latin-1'),
            json.loads(body) if body else None)


def _get_lines(deploy, path, *headers):
    url = urllib.parse.urlsplit(deploy.api.endpoint)
    return (['GET %s%s HTTP/1.1' % (url.path, path),
             'Host: %s' % url.netloc] + list(headers))


@pytest.mark.parametrize('path', [
    '/os-aggregates/%s' % INT64_PLUS, '/flavors?minRam=%s' % INT64_PLUS,
    '/flavors/detail?minDisk=%s' % INT64_PLUS,
    '/os-server-groups?offset=%s' % INT64_PLUS,
])
def test_integers_beyond_the_database_are_400(deploy, path):
    message = _bad_request(deploy, deploy.admin_api.get(path))
    assert INT64_PLUS in message


def test_flavor_create_with_huge_digit_strings_writes_nothing(deploy):
    before = _counts(deploy)
    message = _bad_request(deploy, deploy.admin_api.post('/flavors', {
        'flavor': {'name': 'huge', 'ram': INT64_PLUS, 'vcpus': 1,
                   'disk': 1}}))
    assert 'ram' in message and 'maximum' in message
    assert _counts(deploy) == before


def test_deeply_nested_json_is_400(deploy):
    before = _counts(deploy)
    raw = b'{"flavor": ' + b'[' * 50000 + b']' * 50000 + b'}'
    message = _bad_request(deploy, deploy.admin_api.post(
        '/flavors', raw=raw, headers={'Content-Type': 'application/json'}))
    assert 'nested too deeply' in message
    assert _counts(deploy) == before


@pytest.mark.parametrize('path', ['/servers/%ff', '/servers?name=%ff',
                                  '/flavors/%c3%28'])
def test_non_utf8_url_is_400(deploy, path):
    status, _, body = _raw(deploy, _get_lines(
        deploy, path, 'X-Auth-Token: demo:demo', 'Connection: close'))
    assert status == 400, body
    assert 'not valid UTF-8' in body['badRequest']['message']


def test_control_characters_in_a_name_are_400(deploy):
    before = _counts(deploy)
    message = _bad_request(deploy, deploy.admin_api.post(
        '/os-aggregates', {'aggregate': {'name': 'rack\x001'}}))
    assert 'U+0000' in message
    assert _counts(deploy) == before


def test_oversized_header_line_is_431(deploy):
    status, head, body = _raw(deploy, _get_lines(
        deploy, '/flavors', 'X-Auth-Token: demo:demo',
        'X-Padding: ' + 'p' * 20000))
    assert status == 431, body
    assert 'Connection: close' in head
    assert body['requestHeaderFieldsTooLarge']['code'] == 431


def test_two_auth_tokens_are_refused(deploy):
    status, _, body = _raw(deploy, _get_lines(
        deploy, '/flavors', 'X-Auth-Token: demo:demo',
        'X-Auth-Token: admin:admin'))
    assert status == 400, body
    assert 'X-Auth-Token' in body['badRequest']['message']


def test_another_projects_server_is_an_unknown_marker(deploy):
    status, _, body = deploy.api.as_user('owner:owner').post(
        '/servers', {'server': {'name': 'theirs', 'flavorRef': '1',
                                'imageRef': deploy.register_image()}})
    assert status == 202, body
    marker = body['server']['id']
    message = _bad_request(deploy, deploy.api.get(
        '/servers?marker=%s' % marker))
    assert message == 'Marker %s could not be found.' % marker
    # Its owner pages past it.
    assert deploy.api.as_user('owner:owner').get(
        '/servers?marker=%s' % marker)[0] == 200
