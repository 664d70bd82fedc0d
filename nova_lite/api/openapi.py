"""The OpenAPI 3.1 description of /v2.1, served at ``/v2.1/openapi.json``.

It is built from what the API itself runs on, so it cannot drift: the
paths and methods of ``router.ROUTES``, the request schemas the handlers
validate with (``validation.body`` and ``validation.query`` record them on
the handler; an action route lists its actions' schemas in
``body_schemas``, a list or a function of the version returning one), and
the success status each handler's docstring opens with (STYLE.md: handler
docstrings state the HTTP outcome; "202 (2.2: 204)" is 204 from 2.2, and
a handler lists any other success in ``also_answers``). Every error is
Nova's fault body, ``{"<name>": {"code": N, "message": "..."}}``.

A document describes one microversion: the one its own request
negotiated (``OpenStack-API-Version: compute 2.100``; none is 2.1). It
lists only the routes served at that version (``common.added_at`` and
``removed_at`` record theirs) and, where a handler validates with the
schema of the request's version (``query_schema_versions``,
``body_schema_versions``), that version's schema. Requests described by
it must carry the same header. Where a handler checks a version in code
rather than with a schema (server create's ``tags`` before 2.52, for
one), the document shows the schema of every version and the request
gets the handler's 400.

Success bodies are described as JSON objects, except where a handler
gives its body's schema (``response_schema``, a function of the
version: flavors, for one); their exact shapes are pinned by
tempest.lib's schemas in tests/unit/api/shapes. The
``/{project_id}`` forms of the paths are not listed (they answer the same).
The schemas are JSON Schema draft 4, as Nova's; the few draft-4-only
forms (boolean ``exclusiveMinimum``, tuple ``items``) are rewritten for
3.1's 2020-12.

Usage::

    document = openapi.build(router.ROUTES, 'http://127.0.0.1:8774/v2.1',
                             api_version.APIVersionRequest('2.100'))
"""

import copy
import re

from nova_lite.api import api_version
from nova_lite.api import validation

_STATUS = re.compile(r'\s*([1-5][0-9][0-9])\b')
# "202 (2.2: 204)": the status from a later version on.
_LATER_STATUS = re.compile(r'\s*\((\d+\.\d+): ([1-5][0-9][0-9])\)')
_PATH_PARAM = re.compile(r'{([^}]+)}')

FAULT_SCHEMA = {
    'type': 'object',
    'minProperties': 1,
    'maxProperties': 1,
    'additionalProperties': {
        'type': 'object',
        'properties': {'code': {'type': 'integer'},
                       'message': {'type': 'string'}},
        'required': ['code', 'message'],
    },
}


def to_2020_12(schema):
    """A copy of a draft-4 schema in JSON Schema 2020-12 terms."""
    if isinstance(schema, list):
        return [to_2020_12(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    result = {key: to_2020_12(value) for key, value in schema.items()}
    for bound, exclusive in (('minimum', 'exclusiveMinimum'),
                             ('maximum', 'exclusiveMaximum')):
        flag = result.get(exclusive)
        if isinstance(flag, bool):
            del result[exclusive]
            if flag and bound in result:
                result[exclusive] = result.pop(bound)
    if isinstance(result.get('items'), list):
        # A tuple: draft 4's list of items and additionalItems.
        result['prefixItems'] = result.pop('items')
        if 'additionalItems' in result:
            result['items'] = result.pop('additionalItems')
    return result


def success_status(handler, version=None):
    """The status a handler's docstring opens with ("200 {...}") at
    ``version`` (an APIVersionRequest; 2.1 if None): "202 (2.2: 204)" is
    204 from 2.2 on."""
    doc = handler.__doc__ or ''
    match = _STATUS.match(doc)
    if not match:
        return '200'
    later = _LATER_STATUS.match(doc, match.end())
    if later and version is not None and version.matches(later.group(1)):
        return later.group(2)
    return match.group(1)


def _has_body(handler, status):
    """Whether the success answer has a body: the docstring shows one
    ("200 {"server": ...}"); "202 with no body", "204: ..." and
    "202 (2.2: 204)" do not."""
    first_line = (handler.__doc__ or '').strip().split('\n')[0]
    return status != '204' and '{' in first_line


def _path_parameters(path):
    return [{'name': name, 'in': 'path', 'required': True,
             'schema': {'type': 'string'}}
            for name in _PATH_PARAM.findall(path)]


def served_at(handler, version):
    """Whether ``handler`` answers at ``version`` (not a 404 because the
    route is newer or was removed: ``common.added_at``, ``removed_at``)."""
    added = getattr(handler, 'added_at', None)
    removed = getattr(handler, 'removed_at', None)
    return version.matches(added, None) and not (
        removed and version.matches(removed))


def _schema_at(handler, name, version):
    """The ``name`` schema ("query" or "body") ``handler`` validates with
    at ``version``."""
    versions = getattr(handler, name + '_schema_versions', None)
    if versions:
        return validation.for_version(versions, version)
    return getattr(handler, name + '_schema', None)


def _query_parameters(handler, version):
    """One parameter per property of the query schema (a dict of lists:
    a parameter may repeat, each value checked by ``items``)."""
    schema = _schema_at(handler, 'query', version)
    if not schema:
        return []
    params = []
    for name, prop in sorted(schema.get('properties', {}).items()):
        value = prop.get('items', prop) if prop.get('type') == 'array' \
            else prop
        params.append({'name': name, 'in': 'query', 'required': False,
                       'schema': to_2020_12(value)})
    return params


def _request_body(handler, version):
    schemas = getattr(handler, 'body_schemas', None)
    if callable(schemas):
        schemas = schemas(version)
    body_schema = _schema_at(handler, 'body', version)
    if schemas:
        schema = {'oneOf': [to_2020_12(s) for s in schemas]}
    elif body_schema:
        schema = to_2020_12(body_schema)
    else:
        return None
    return {'required': True,
            'content': {'application/json': {'schema': schema}}}


def _responses(handler, version):
    status = success_status(handler, version)
    success = {'description': (handler.__doc__ or '').strip() or status}
    if int(status) >= 400:
        # A route that answers an error by design (501 where nova_lite's
        # computes cannot do what Nova's drivers do): a fault.
        success['content'] = {'application/json': {
            'schema': {'$ref': '#/components/schemas/Fault'}}}
    elif _has_body(handler, status):
        # A handler may describe its body (``response_schema``, a
        # function of the version); else any JSON object.
        described = getattr(handler, 'response_schema', None)
        success['content'] = {'application/json': {
            'schema': (to_2020_12(described(version)) if described
                       else {'type': 'object'})}}
    responses = {status: success}
    # Other successes the handler names (``also_answers``), their bodies
    # not described.
    for other in getattr(handler, 'also_answers', ()):
        responses.setdefault(other, {'description': other})
    return dict(responses, **{
        'default': {'description': 'A fault: its status and why.',
                    'content': {'application/json': {
                        'schema': {'$ref': '#/components/schemas/Fault'}}}},
    })


def _operation_id(method, path):
    words = re.sub(r'[^A-Za-z0-9]+', '_', path).strip('_') or 'root'
    return '%s_%s' % (method.lower(), words)


def operation(method, path, handler, version):
    """The OpenAPI operation object of one route and method at
    ``version`` (an APIVersionRequest)."""
    op = {
        'operationId': _operation_id(method, path),
        'summary': ((handler.__doc__ or '').strip().split('\n')[0]
                    or '%s %s' % (method, path)),
        'parameters': (_path_parameters(path)
                       + _query_parameters(handler, version)),
        'responses': _responses(handler, version),
    }
    body = _request_body(handler, version)
    if body is not None:
        op['requestBody'] = body
    return op


def build(routes, server_url, version=None):
    """The OpenAPI 3.1 document of ``routes`` served at ``server_url``,
    at microversion ``version`` (an APIVersionRequest; 2.1 if None)."""
    version = version or api_version.min_version()
    paths = {}
    for path, methods in routes.items():
        item = {method.lower(): operation(method, path, handler, version)
                for method, handler in sorted(methods.items())
                if served_at(handler, version)}
        if item:
            paths[path or '/'] = item
    return {
        'openapi': '3.1.0',
        'info': {
            'title': 'nova_lite compute API',
            'version': str(version),
            'description': 'OpenStack Compute API v2.1 as nova_lite '
                           'serves it at microversion %s (of %s to %s): '
                           'send "%s: %s %s" with every request.'
                           % (version, api_version.VERSIONS[0],
                              api_version.VERSIONS[-1],
                              api_version.HEADER,
                              api_version.SERVICE_TYPE, version),
        },
        'servers': [{'url': server_url}],
        'paths': paths,
        'components': {
            'schemas': {'Fault': copy.deepcopy(FAULT_SCHEMA)},
            'securitySchemes': {'token': {
                'type': 'apiKey', 'in': 'header', 'name': 'X-Auth-Token'}},
        },
        'security': [{'token': []}],
    }
