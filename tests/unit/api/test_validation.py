"""Schema validation of server and flavor creation, and bad JSON."""

import pytest

from nova_lite.api.handlers import servers
from nova_lite.api.schemas import flavors as flavor_schema
from nova_lite.api.schemas import servers as server_schema
from nova_lite.api import validation
from nova_lite import exception
from tests.unit.api import conftest
from tests.unit.api import fakes

IMAGE_ID = fakes.image()['id']


@pytest.fixture(autouse=True)
def no_compute(monkeypatch):
    """Validation must fail before anything is looked up or created."""
    def boom(*args, **kwargs):
        raise AssertionError('reached the compute API')
    fake = fakes.FakeComputeAPI()
    monkeypatch.setattr(fake, 'create', boom)
    monkeypatch.setattr(servers, 'compute', fake)


def _server(**values):
    body = {'name': 'vm', 'imageRef': IMAGE_ID, 'flavorRef': '1'}
    body.update(values)
    return {'server': body}


def _message(resp):
    assert resp.status_int == 400, resp.body
    return resp.json['badRequest']['message']


class TestServerCreate:
    def test_missing_name(self, api):
        body = _server()
        del body['server']['name']
        assert "'name' is a required property" in _message(
            api()('POST', '/servers', body))

    @pytest.mark.parametrize('field, value', [
        ('min_count', -1), ('min_count', 0), ('max_count', 0),
        ('max_count', '-2'), ('min_count', 'many'), ('max_count', 1.5),
    ])
    def test_bad_counts(self, api, field, value):
        message = _message(api()('POST', '/servers',
                                 _server(**{field: value})))
        assert 'Invalid input for field/attribute %s' % field in message

    def test_min_over_max(self, api):
        message = _message(api()('POST', '/servers',
                                 _server(min_count=3, max_count=2)))
        assert message == 'min_count must be <= max_count'

    @pytest.mark.parametrize('name', ['', ' lead', 'trail ', 'x' * 256])
    def test_bad_names(self, api, name):
        assert 'name' in _message(api()('POST', '/servers',
                                        _server(name=name)))

    def test_unknown_field(self, api):
        assert 'flavor_ref' in _message(api()(
            'POST', '/servers', _server(flavor_ref='1')))

    def test_metadata_values_are_strings(self, api):
        # As Nova, the message names the innermost field (the key).
        message = _message(api()('POST', '/servers',
                                 _server(metadata={'color': 1})))
        assert message.startswith('Invalid input for field/attribute '
                                  'color. Value: 1.')

    @pytest.mark.parametrize('raw', [b'{"server": ', b'not json', b''])
    def test_malformed_json(self, api, raw):
        resp = api()('POST', '/servers', raw)
        assert _message(resp) == 'Malformed request body'

    def test_non_json_content_type_is_415(self, api):
        resp = api()('POST', '/servers', b'<server/>',
                     headers={'Content-Type': 'application/xml'})
        assert resp.status_int == 415


class TestFlavorCreate:
    def _post(self, api, **flavor):
        values = {'name': 'm1.big', 'ram': 1024, 'vcpus': 2, 'disk': 10}
        values.update(flavor)
        admin = conftest.make_context('admin', 'ops')
        return api(admin)('POST', '/flavors', {'flavor': values})

    @pytest.mark.parametrize('field, value', [
        ('ram', 0), ('vcpus', -1), ('disk', -1), ('swap', 'lots'),
        ('OS-FLV-EXT-DATA:ephemeral', -5), ('rxtx_factor', 0),
        ('id', 'bad id '), ('os-flavor-access:is_public', 'maybe'),
    ])
    def test_bad_fields(self, api, field, value):
        assert field in _message(self._post(api, **{field: value}))

    def test_missing_ram(self, api):
        admin = conftest.make_context('admin', 'ops')
        resp = api(admin)('POST', '/flavors', {'flavor': {
            'name': 'x', 'vcpus': 1, 'disk': 1}})
        assert "'ram' is a required property" in _message(resp)


def test_schemas_are_valid_draft4():
    for schema in (server_schema.CREATE, server_schema.INDEX_QUERY,
                   flavor_schema.CREATE, flavor_schema.INDEX_QUERY):
        validation._validator(schema)


def test_validate_raises_validation_error():
    validator = validation._validator(flavor_schema.CREATE)
    with pytest.raises(exception.ValidationError):
        validation.validate(validator, {'flavor': {}})
