"""``assert_shape``: a response against a tempest.lib response schema.

Every test here runs at each advertised microversion, 2.1 to the
maximum; ``schemas(name)`` gives tempest.lib's module of that name for the
version under test (the newest one at or below it, as tempest's clients
choose), so every answer is checked at every version nova_lite gives it.
"""

import copy
import functools
import importlib
import json
import os

import jsonschema
import pytest
from tempest.lib.api_schema.response import compute as tempest_compute
from tempest.lib.api_schema.response.compute.v2_1 import parameter_types
from tempest.lib.common import jsonschema_validator

from nova_lite.api import api_version
from nova_lite.api import router
from nova_lite import policy
from tests.unit.api import conftest as api_conftest


# id(body schema) -> (the schema, the JSON texts of bodies it passed):
# the same answer checked against the same schema at another version
# needs no second validation. The schema is kept so its id is not reused.
_PASSED = {}


def check_shape(resp, schema):
    """Fail unless ``resp`` has one of the schema's status codes and a body
    (if the schema describes one) that validates, formats included."""
    assert resp.status_int in schema['status_code'], (
        resp.status_int, resp.body)
    body_schema = schema.get('response_body')
    if body_schema is None:
        return
    body = json.loads(resp.body) if resp.body else None
    text = json.dumps(body, sort_keys=True)
    passed = _PASSED.setdefault(id(body_schema), (body_schema, set()))[1]
    if text in passed:
        return
    validator = jsonschema_validator.JSONSCHEMA_VALIDATOR(
        body_schema, format_checker=jsonschema_validator.FORMAT_CHECKER)
    try:
        validator.validate(body)
    except jsonschema.ValidationError as exc:
        pytest.fail('%s\nbody: %s' % (exc, json.dumps(body, indent=1)))
    passed.add(text)


@functools.lru_cache(maxsize=None)
def _defined():
    """{(minor, module name)} of tempest.lib's compute response schemas,
    read from its package (a failed import per version is slow)."""
    found = set()
    root = os.path.dirname(tempest_compute.__file__)
    for entry in os.listdir(root):
        if entry.startswith('v2_'):
            found.update((int(entry[3:]), name[:-3])
                         for name in os.listdir(os.path.join(root, entry))
                         if name.endswith('.py') and name != '__init__.py')
    return found


@functools.lru_cache(maxsize=None)
def _modules(name, version):
    """tempest.lib's ``response.compute.v2_N.<name>`` modules, from the
    highest N at or below ``version`` down to 2.1: the newest first, as
    tempest's clients pick a schema for a microversion."""
    major, minor = (int(part) for part in str(version).split('.'))
    return tuple(
        importlib.import_module(
            'tempest.lib.api_schema.response.compute.v%d_%d.%s' % (
                major, candidate, name))
        for candidate in range(minor, 0, -1)
        if (candidate, name) in _defined())


class TempestSchemas:
    """``.create_server``: the schema of the newest module at or below
    the version that defines it (tempest.lib's later modules redefine
    only what changed, and not always everything else)."""

    def __init__(self, name, version):
        self._modules = _modules(name, str(version))
        if not self._modules:
            raise LookupError('tempest.lib has no %s schemas' % name)

    def __getattr__(self, attr):
        for module in self._modules:
            if hasattr(module, attr):
                return getattr(module, attr)
        raise AttributeError(attr)


# Nova 2.88 removed these from a hypervisor's detail and show views (and
# added the node's ``uptime`` to them). tempest.lib has no hypervisors
# module after 2.53, so the 2.88 schemas below are derived from its 2.53
# ones by exactly this change: nothing of tempest's is retyped here.
DROPPED_AT_2_88 = ('vcpus', 'memory_mb', 'local_gb', 'vcpus_used',
                   'memory_mb_used', 'local_gb_used', 'running_vms',
                   'cpu_info', 'free_ram_mb', 'free_disk_gb',
                   'disk_available_least', 'current_workload')


# (id of tempest's schema, path) -> (tempest's schema, the 2.88 one): one
# derived schema per response, so check_shape's memory of it holds.
_AT_2_88 = {}


def hypervisor_at_2_88(schema, *path):
    """A deep copy of tempest.lib's (2.53) schema of a hypervisor response
    with 2.88's change applied to the hypervisor found under ``path``
    ('[]' for a list's items): the dropped fields neither required nor
    allowed, and ``uptime`` allowed as a string, or null when the compute
    cannot say."""
    key = (id(schema), path)
    if key not in _AT_2_88:
        derived = copy.deepcopy(schema)
        item = derived['response_body']
        for step in path:
            item = (item['items'] if step == '[]'
                    else item['properties'][step])
        item['required'] = [name for name in item['required']
                            if name not in DROPPED_AT_2_88]
        for name in DROPPED_AT_2_88:
            item['properties'].pop(name, None)
        item['properties']['uptime'] = {'type': ['string', 'null']}
        _AT_2_88[key] = (schema, derived)
    return _AT_2_88[key][1]


# (id of tempest's schema, links key) -> (tempest's schema, with links).
_WITH_LINKS = {}


def with_links(schema, key):
    """tempest.lib's list ``schema`` also allowing the ``key`` (say
    ``keypairs_links``) that Nova adds to a page which is not the last, in
    the form tempest.lib's ``parameter_types.links`` gives: tempest.lib
    describes some paged lists (servers, flavors, hypervisors) with their
    links and others (key pairs from 2.35, migrations from 2.59, usage from
    2.40) without."""
    cache_key = (id(schema), key)
    if cache_key not in _WITH_LINKS:
        derived = copy.deepcopy(schema)
        derived['response_body']['properties'][key] = copy.deepcopy(
            parameter_types.links)
        _WITH_LINKS[cache_key] = (schema, derived)
    return _WITH_LINKS[cache_key][1]


@pytest.fixture
def schemas(microversion):
    """``schemas('servers')``: tempest.lib's module for the version."""
    return lambda name: TempestSchemas(name, microversion)


@pytest.fixture
def assert_shape():
    return check_shape


# Every test here runs at every version, so what the API tests build per
# test (a router with its routes, an enforcer with its rules: most of a
# small test's time) is built once here. Neither holds state of its own,
# and nothing here changes a policy rule.
_SHARED = {}


@pytest.fixture
def api():
    """As the API tests' ``api``, over the one router of the suite."""
    if 'router' not in _SHARED:
        _SHARED['router'] = router.APIRouter()

    def make(context=None):
        app = api_conftest.WithContext(_SHARED['router'],
                                       context or api_conftest.make_context())

        def request(method, path, body=None, headers=None):
            return api_conftest.call(app, method, path, body=body,
                                     headers=headers)
        return request
    return make


@pytest.fixture(autouse=True)
def fresh_policy(monkeypatch):
    """The suite's one enforcer, with nova_lite's default rules."""
    if 'enforcer' not in _SHARED:
        policy.reset()
        _SHARED['enforcer'] = policy.init()
    monkeypatch.setattr(policy, '_ENFORCER', _SHARED['enforcer'])


def _shape_versions():
    """Every advertised version: each is checked against the schemas
    tempest would pick for it."""
    return list(api_version.VERSIONS)


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
