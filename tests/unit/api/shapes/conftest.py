"""``assert_shape``: a response against a tempest.lib response schema."""

import json

import jsonschema
import pytest
from tempest.lib.common import jsonschema_validator


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
