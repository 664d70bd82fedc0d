"""Microversion negotiation."""

import pytest

from nova_lite.api import api_version
from nova_lite import exception


@pytest.fixture
def versions(monkeypatch):
    """Pretend the API speaks 2.1 to 2.10."""
    monkeypatch.setattr(api_version, 'VERSIONS',
                        ['2.%d' % n for n in range(1, 11)])


def test_every_version_has_a_comment():
    source = open(api_version.__file__).read()
    for version in api_version.VERSIONS:
        assert '# %s: ' % version in source


def test_no_header_is_the_minimum(versions):
    assert str(api_version.from_headers({})) == '2.1'


def test_latest_is_the_maximum(versions):
    headers = {'OpenStack-API-Version': 'compute latest'}
    assert str(api_version.from_headers(headers)) == '2.10'


@pytest.mark.parametrize('headers, expected', [
    ({'OpenStack-API-Version': 'compute 2.5'}, '2.5'),
    ({'OpenStack-API-Version': 'volume 3.1, compute 2.7'}, '2.7'),
    ({'X-OpenStack-Nova-API-Version': '2.3'}, '2.3'),
    # The new header wins over the legacy one.
    ({'OpenStack-API-Version': 'compute 2.4',
      'X-OpenStack-Nova-API-Version': '2.9'}, '2.4'),
    # A header for another service only: the legacy one, else minimum.
    ({'OpenStack-API-Version': 'volume 3.1'}, '2.1'),
])
def test_requested(versions, headers, expected):
    assert str(api_version.from_headers(headers)) == expected


@pytest.mark.parametrize('value', ['2.11', '3.0', '2.0', '1.1'])
def test_unsupported_is_406(versions, value):
    with pytest.raises(exception.InvalidGlobalAPIVersion) as info:
        api_version.from_headers({'OpenStack-API-Version':
                                  'compute ' + value})
    assert info.value.code == 406
    assert 'Minimum is 2.1 and maximum is 2.10' in str(info.value)


@pytest.mark.parametrize('value', ['2', '2.x', 'two', '2.01', '02.1'])
def test_malformed_is_400(versions, value):
    with pytest.raises(exception.InvalidAPIVersionString) as info:
        api_version.from_headers({'X-OpenStack-Nova-API-Version': value})
    assert info.value.code == 400


def test_ordering_and_matches():
    v = api_version.APIVersionRequest
    assert v('2.10') > v('2.9')
    assert v('2.5').matches('2.1', '2.5')
    assert not v('2.5').matches('2.6')
    assert not v('2.5').matches(None, '2.4')


def test_header_names_and_service_type_ignore_case(api):
    # 2.27 is where Nova documents the new header; names of headers and
    # the service type are compared without case.
    resp = api()('GET', '', headers={'openstack-api-version':
                                     'COMPUTE 2.27'})
    assert resp.headers['OpenStack-API-Version'] == 'compute 2.27'
    assert resp.headers['X-OpenStack-Nova-API-Version'] == '2.27'
