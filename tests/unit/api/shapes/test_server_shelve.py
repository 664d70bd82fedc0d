"""createImage, shelve, shelveOffload and unshelve against tempest.lib's
schemas, at each advertised microversion (createImage's changes at
2.45)."""

from nova_lite.api import api_version
from nova_lite.objects import fields
from tests.unit.api import conftest as api_conftest
from tests.unit.api.test_server_shelve import world  # noqa: F401

UUID = 'c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30'
ACTION = '/servers/%s/action' % UUID


def test_create_image(api, world, assert_shape, schemas,  # noqa: F811
                      microversion):
    resp = api()('POST', ACTION, {'createImage': {'name': 'snap'}})
    assert_shape(resp, schemas('images').create_image)
    located = 'location' in {k.lower() for k in resp.headers}
    version = api_version.APIVersionRequest(microversion)
    assert located is not version.matches('2.45')


def test_shelve_actions(api, world, assert_shape, schemas):  # noqa: F811
    common = schemas('servers').server_actions_common_schema
    admin = api(api_conftest.make_context('admin', 'adminproj'))
    assert_shape(admin('POST', ACTION, {'shelve': None}),
                 common)
    world.set_state(fields.VMState.SHELVED)
    assert_shape(admin('POST', ACTION, {'shelveOffload': None}),
                 common)
    world.set_state(fields.VMState.SHELVED_OFFLOADED, host=None)
    assert_shape(admin('POST', ACTION, {'unshelve': None}),
                 common)


def test_create_backup(api, world, assert_shape, schemas):  # noqa: F811
    resp = api()('POST', ACTION, {'createBackup': {
        'name': 'nightly', 'backup_type': 'daily', 'rotation': 2}})
    assert_shape(resp, schemas('servers').create_backup)
