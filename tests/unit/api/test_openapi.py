"""/v2.1/openapi.json: built from the route table and the schemas the
handlers validate with, at the microversion the request negotiated."""

import jsonschema
import pytest

from nova_lite.api import api_version
from nova_lite.api import openapi
from nova_lite.api import router
from nova_lite.api.schemas import flavors as flavor_schemas
from nova_lite.api.schemas import server_rebuild as rebuild_schemas
from nova_lite.api.schemas import servers as server_schemas

LATEST = api_version.VERSIONS[-1]


def _get(api, version=None):
    headers = ({'OpenStack-API-Version': 'compute %s' % version}
               if version else None)
    resp = api()('GET', '/openapi.json', headers=headers)
    assert resp.status_int == 200
    assert resp.content_type == 'application/json'
    return resp.json


@pytest.fixture
def document(api):
    return _get(api)


@pytest.fixture
def latest(api):
    return _get(api, LATEST)


def _operations(document):
    return {(method.upper(), path)
            for path, item in document['paths'].items() for method in item}


def _served(version):
    """(method, path) of every route whose handler answers at
    ``version`` rather than a 404 of its route's version."""
    request = api_version.APIVersionRequest(version)
    return {(method, path or '/') for path, methods in router.ROUTES.items()
            for method, handler in methods.items()
            if openapi.served_at(handler, request)}


def _schemas(node):
    """Every schema object of the document (bodies and parameters)."""
    if isinstance(node, dict):
        if 'schema' in node:
            yield node['schema']
        for value in node.values():
            yield from _schemas(value)
    elif isinstance(node, list):
        for value in node:
            yield from _schemas(value)


def test_every_route_and_method_is_described(document, latest):
    assert document['openapi'] == '3.1.0'
    assert document['servers'] == [{'url': 'http://localhost/v2.1'}]
    everything = {(method, path or '/') for path, methods in
                  router.ROUTES.items() for method in methods}
    # Every route is in the document of some version.
    assert _operations(document) | _operations(latest) == everything
    ids = [op['operationId'] for item in document['paths'].values()
           for op in item.values()]
    assert len(ids) == len(set(ids))


def test_the_document_is_of_the_negotiated_version(document, latest):
    assert document['info']['version'] == '2.1'
    assert latest['info']['version'] == LATEST
    assert 'compute %s' % LATEST in latest['info']['description']
    assert _operations(document) == _served('2.1')
    assert _operations(latest) == _served(LATEST)
    # Added later (tags 2.26, topology 2.78, a flavor's PUT 2.55) ...
    for op in (('GET', '/servers/{server_id}/tags'),
               ('GET', '/servers/{server_id}/topology'),
               ('PUT', '/flavors/{flavor_id}')):
        assert op not in _operations(document)
        assert op in _operations(latest)
    # ... and removed (the image proxy 2.36, os-hosts 2.43).
    for op in (('GET', '/images'), ('GET', '/os-hosts')):
        assert op in _operations(document)
        assert op not in _operations(latest)


def test_request_schemas_are_those_of_the_version(document, latest):
    def query(doc):
        return {p['name']: p['schema'] for p in
                doc['paths']['/servers/detail']['get']['parameters']}
    assert 'locked' not in query(document)
    assert 'locked' in query(latest)

    def action_names(doc):
        op = doc['paths']['/servers/{server_id}/action']['post']
        schema = op['requestBody']['content']['application/json']['schema']
        return {name for s in schema['oneOf'] for name in s['properties']}
    assert 'addFloatingIp' in action_names(document)
    assert 'addFloatingIp' not in action_names(latest)
    op = latest['paths']['/servers/{server_id}/action']['post']
    rebuild = [s for s in op['requestBody']['content']['application/json'][
        'schema']['oneOf'] if 'rebuild' in s['properties']]
    assert rebuild == [openapi.to_2020_12(
        rebuild_schemas.REBUILD_VERSIONS[-1][1])]
    flavor = latest['paths']['/flavors']['post']['requestBody']['content'][
        'application/json']['schema']
    assert flavor == openapi.to_2020_12(flavor_schemas.CREATE_V255)


def test_an_unsupported_version_gets_no_document(api):
    resp = api()('GET', '/openapi.json',
                 headers={'OpenStack-API-Version': 'compute 2.999'})
    assert resp.status_int == 406


def test_request_schemas_are_the_validated_ones(document):
    create = document['paths']['/servers']['post']
    body = create['requestBody']['content']['application/json']['schema']
    assert body == openapi.to_2020_12(server_schemas.CREATE)
    assert create['responses']['202']['content']
    params = {p['name']: p for p in document['paths']['/servers']['get'][
        'parameters']}
    assert params['limit']['in'] == 'query'
    # At 2.1, the 2.1 list query (no "locked" sort key).
    assert params['sort_key']['schema'] == (
        server_schemas.INDEX_QUERY['properties']['sort_key']['items'])
    [path_param] = document['paths']['/servers/{server_id}']['get'][
        'parameters']
    assert path_param == {'name': 'server_id', 'in': 'path',
                          'required': True, 'schema': {'type': 'string'}}


def test_action_routes_list_each_action(document):
    op = document['paths']['/flavors/{flavor_id}/action']['post']
    schema = op['requestBody']['content']['application/json']['schema']
    assert sorted(next(iter(s['required'])) for s in schema['oneOf']) == [
        'addTenantAccess', 'removeTenantAccess']
    op = document['paths']['/servers/{server_id}/action']['post']
    schema = op['requestBody']['content']['application/json']['schema']
    names = {name for s in schema['oneOf'] for name in s['properties']}
    assert {'reboot', 'os-stop', 'os-resetState'} <= names


def test_bodyless_answers_declare_no_content(document):
    delete = document['paths']['/servers/{server_id}']['delete']
    assert 'content' not in delete['responses']['204']
    flavor_delete = document['paths']['/flavors/{flavor_id}']['delete']
    assert 'content' not in flavor_delete['responses']['202']
    # "202 (2.2: 204); 404 if ...": no body at either version.
    keypair = document['paths']['/os-keypairs/{keypair_name}']['delete']
    assert 'content' not in keypair['responses']['202']
    action = document['paths']['/servers/{server_id}/action']['post']
    assert 'content' not in action['responses']['202']
    uptime = document['paths']['/os-hypervisors/{hypervisor_id}/uptime'][
        'get']['responses']
    assert 'content' in uptime['200']
    fault = document['paths']['/servers']['get']['responses']['default']
    assert fault['content']['application/json']['schema'] == {
        '$ref': '#/components/schemas/Fault'}


def test_a_status_changed_by_a_version_is_declared_at_it(document,
                                                         latest):
    # Found by the fuzzer at 2.100: key pairs' delete answers 204 from
    # 2.2 (create 201), which the document declared nowhere, so the
    # bodyless 204 was checked against the fault of "default".
    keypair = '/os-keypairs/{keypair_name}'
    assert set(document['paths'][keypair]['delete']['responses']) == {
        '202', 'default'}
    assert set(latest['paths'][keypair]['delete']['responses']) == {
        '204', 'default'}
    assert 'content' not in latest['paths'][keypair]['delete'][
        'responses']['204']
    assert '201' in latest['paths']['/os-keypairs']['post']['responses']
    assert '200' in document['paths']['/os-keypairs']['post']['responses']


def test_other_successes_are_declared_without_a_body(latest):
    # evacuate answers 200 and confirmResize 204; a tag already there
    # 204.
    action = latest['paths']['/servers/{server_id}/action']['post']
    assert {'200', '202', '204'} <= set(action['responses'])
    assert 'content' not in action['responses']['204']
    tag = latest['paths']['/servers/{server_id}/tags/{tag}']['put']
    assert {'201', '204'} <= set(tag['responses'])


@pytest.mark.parametrize('version', ['2.1', '2.53', LATEST])
def test_every_schema_is_valid_2020_12(version):
    document = openapi.build(router.ROUTES, 'http://localhost/v2.1',
                             api_version.APIVersionRequest(version))
    schemas = list(_schemas(document)) + list(
        document['components']['schemas'].values())
    assert len(schemas) > 50
    for schema in schemas:
        jsonschema.Draft202012Validator.check_schema(schema)


def test_draft4_exclusive_bounds_are_rewritten():
    assert openapi.to_2020_12(
        {'type': 'integer', 'minimum': 0, 'exclusiveMinimum': True}) == {
        'type': 'integer', 'exclusiveMinimum': 0}
    assert openapi.to_2020_12(
        {'maximum': 5, 'exclusiveMaximum': False}) == {'maximum': 5}
    assert openapi.to_2020_12(
        {'items': [{'type': 'string'}], 'additionalItems': False}) == {
        'prefixItems': [{'type': 'string'}], 'items': False}
    ram = openapi.to_2020_12(flavor_schemas.CREATE)[
        'properties']['flavor']['properties']
    assert not any(isinstance(p.get('exclusiveMinimum'), bool)
                   for p in ram.values())


def test_fault_schema_matches_a_real_fault(api):
    resp = api()('GET', '/servers/nope')
    assert resp.status_int == 404
    jsonschema.validate(resp.json, openapi.FAULT_SCHEMA)
