"""``assert_shape``: a response against a tempest.lib response schema.

Every test here runs at each advertised microversion; ``schemas(name)``
gives tempest.lib's module of that name for the version under test (the
newest one at or below it), so a shape that changes is checked against
the schema of its version.
"""

import copy
import importlib
import json
import os

import jsonschema
import pytest
from tempest.lib.api_schema.response import compute as tempest_compute
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


def _modules(name, version):
    """tempest.lib's ``response.compute.v2_N.<name>`` modules, from the
    highest N at or below ``version`` down to 2.1."""
    major, minor = (int(part) for part in str(version).split('.'))
    for candidate in range(minor, 0, -1):
        module = 'tempest.lib.api_schema.response.compute.v%d_%d.%s' % (
            major, candidate, name)
        try:
            yield importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if not module.startswith(exc.name or ''):
                raise


class TempestSchemas:
    """``.create_server``: the schema of the newest module at or below
    the version that defines it (tempest.lib's later modules redefine
    only what changed, and not always everything else)."""

    def __init__(self, name, version):
        self._name = name
        self._version = api_version.APIVersionRequest(str(version))
        self._modules = list(_modules(name, version))
        if not self._modules:
            raise LookupError('tempest.lib has no %s schemas' % name)

    def _plain(self, attr):
        for module in self._modules:
            if hasattr(module, attr):
                return getattr(module, attr)
        raise AttributeError(attr)

    def __getattr__(self, attr):
        return self._plain(attr)


# The hypervisor fields Nova dropped at 2.88.
DROPPED_AT_2_88 = ('vcpus', 'memory_mb', 'local_gb', 'vcpus_used',
                   'memory_mb_used', 'local_gb_used', 'running_vms',
                   'cpu_info', 'free_ram_mb', 'free_disk_gb',
                   'disk_available_least', 'current_workload')


def hypervisor_at_2_88(schema, *path):
    """tempest.lib's (2.53) schema of a hypervisor response, the
    hypervisor found under ``path`` ('[]' for a list's items) no longer
    requiring 2.88's dropped fields and allowed a string or null
    ``uptime`` (tempest.lib has no 2.88 hypervisor schema of its own)."""
    schema = copy.deepcopy(schema)
    item = schema['response_body']
    for key in path:
        item = item['items'] if key == '[]' else item['properties'][key]
    item['required'] = [name for name in item['required']
                        if name not in DROPPED_AT_2_88]
    item['properties']['uptime'] = {'type': ['string', 'null']}
    return schema


@pytest.fixture
def schemas(microversion):
    """``schemas('servers')``: tempest.lib's module for the version."""
    return lambda name: TempestSchemas(name, microversion)



@pytest.fixture
def assert_shape():
    return check_shape


def _shape_versions():
    """2.1, the maximum, and every advertised version where tempest.lib
    has schemas of its own (where some response shape changes)."""
    compute_dir = os.path.dirname(tempest_compute.__file__)
    changed = {entry[1:].replace('_', '.')
               for entry in os.listdir(compute_dir)
               if entry.startswith('v2_')}
    return [v for v in api_version.VERSIONS
            if v in changed or v == api_version.VERSIONS[-1]]


@pytest.fixture(autouse=True, params=_shape_versions())
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
