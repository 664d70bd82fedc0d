"""/v2.1/openapi.json: built from the route table and the schemas the
handlers validate with."""

import jsonschema
import pytest

from nova_lite.api import openapi
from nova_lite.api import router
from nova_lite.api.schemas import flavors as flavor_schemas
from nova_lite.api.schemas import servers as server_schemas


@pytest.fixture
def document(api):
    resp = api()('GET', '/openapi.json')
    assert resp.status_int == 200
    assert resp.content_type == 'application/json'
    return resp.json


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


def test_every_route_and_method_is_described(document):
    assert document['openapi'] == '3.1.0'
    assert document['servers'] == [{'url': 'http://localhost/v2.1'}]
    described = {(method.upper(), path)
                 for path, item in document['paths'].items()
                 for method in item}
    expected = {(method, path or '/') for path, methods in
                router.ROUTES.items() for method in methods}
    assert described == expected
    ids = [op['operationId'] for item in document['paths'].values()
           for op in item.values()]
    assert len(ids) == len(set(ids))


def test_request_schemas_are_the_validated_ones(document):
    create = document['paths']['/servers']['post']
    body = create['requestBody']['content']['application/json']['schema']
    assert body == openapi.to_2020_12(server_schemas.CREATE)
    assert create['responses']['202']['content']
    params = {p['name']: p for p in document['paths']['/servers']['get'][
        'parameters']}
    assert params['limit']['in'] == 'query'
    assert params['sort_key']['schema'] == (
        server_schemas.LIST_QUERY_ANY['properties']['sort_key']['items'])
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


def test_every_schema_is_valid_2020_12(document):
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
