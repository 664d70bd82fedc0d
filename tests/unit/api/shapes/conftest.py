"""``assert_shape``: a response against a tempest.lib response schema.

Every test here runs at each advertised microversion: tempest.lib's
schemas for a version are those of the newest module at or below it, and
no version nova_lite advertises beyond 2.1 changes a resource it serves.
"""

import json

import jsonschema
import pytest
from tempest.lib.common import jsonschema_validator

from nova_lite.api import api_version
from tests.unit.api import conftest as api_conftest


def check_shape(resp, schema):
    """Fail unless ``resp`` has one of the schema's status codes and a body
    (if the schema describes one) that validates, formats included."""
    assert resp.status_int in schema['status_code'], (
        resp.status_int, resp.body)
    body_schema = schema.get('response_body')
    if body_schema is None:
        return
    body = json.loads(resp.body) if resp.body else None
    validator = jsonschema_validator.JSONSCHEMA_VALIDATOR(
        body_schema, format_checker=jsonschema_validator.FORMAT_CHECKER)
    try:
        validator.validate(body)
    except jsonschema.ValidationError as exc:
        pytest.fail('%s\nbody: %s' % (exc, json.dumps(body, indent=1)))


@pytest.fixture
def assert_shape():
    return check_shape


@pytest.fixture(autouse=True, params=api_version.VERSIONS)
def microversion(request, monkeypatch):
    """Send every request of the test with this version's header."""
    plain_call = api_conftest.call

    def call(app, method, path, body=None, headers=None, **kwargs):
        headers = dict(headers or {},
                       **{'OpenStack-API-Version':
                          'compute %s' % request.param})
        resp = plain_call(app, method, path, body=body, headers=headers,
                          **kwargs)
        assert resp.headers.get('OpenStack-API-Version') in (
            None, 'compute %s' % request.param)
        return resp
    monkeypatch.setattr(api_conftest, 'call', call)
    return request.param
