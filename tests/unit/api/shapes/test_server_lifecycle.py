"""Server actions, update, metadata, instance actions and key pairs
against tempest.lib's schemas, at each advertised microversion."""

import functools

from nova_lite.api import api_version
from nova_lite import crypto
from nova_lite.objects import fields
from tests.unit.api import conftest
from tests.unit.api.shapes import conftest as shapes_conftest
from tests.unit.api.test_keypairs_instance_actions import history  # noqa
from tests.unit.api.test_keypairs_instance_actions import keys  # noqa
from tests.unit.api.test_server_actions import world  # noqa: F401
from tests.unit.api.test_server_crash_dump import rpc  # noqa: F401
from tests.unit.api import test_server_metadata_update as metadata_tests

UUID = 'c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30'
ADMIN = conftest.make_context('admin', 'ops')
V = fields.VMState
meta_world = metadata_tests.world


def test_actions(api, world, assert_shape, schemas):  # noqa: F811
    servers = schemas('servers')
    member = api()
    for body in ({'reboot': {'type': 'SOFT'}}, {'lock': None},
                 {'unlock': None}):
        assert_shape(member('POST', '/servers/%s/action' % UUID, body),
                     servers.server_actions_common_schema)


def test_update_and_metadata(api, meta_world, assert_shape, schemas):
    servers = schemas('servers')
    member = api()
    path = '/servers/%s/metadata' % UUID
    assert_shape(member('PUT', '/servers/' + UUID,
                        {'server': {'name': 'x'}}), servers.update_server)
    assert_shape(member('GET', path), servers.list_server_metadata)
    assert_shape(member('PUT', path, {'metadata': {'a': '2'}}),
                 servers.set_server_metadata)
    assert_shape(member('POST', path, {'metadata': {'b': '2'}}),
                 servers.update_server_metadata)
    assert_shape(member('PUT', path + '/c', {'meta': {'c': '3'}}),
                 servers.set_show_server_metadata_item)
    assert_shape(member('GET', path + '/c'),
                 servers.set_show_server_metadata_item)
    assert_shape(member('DELETE', path + '/c'),
                 servers.delete_server_metadata_item)


def test_instance_actions(api, history, assert_shape, schemas):  # noqa: F811
    servers = schemas('servers')
    member = api()
    path = '/servers/%s/os-instance-actions' % UUID
    assert_shape(member('GET', path), servers.list_instance_actions)
    # A page (2.58), with links when it may not be the last.
    assert_shape(member('GET', path + '?limit=1'),
                 servers.list_instance_actions)
    assert_shape(member('GET', path + '/req-1'),
                 servers.show_instance_action)
    # Administrators see the events (everyone from 2.51), with their
    # host from 2.62 and details from 2.84.
    assert_shape(api(ADMIN)('GET', path + '/req-1'),
                 servers.show_instance_action)


# One RSA key for the suite: generating one per version was a third of
# the suite's time, and its bits do not change the answer's shape.
_ONE_KEY_PAIR = functools.lru_cache(maxsize=None)(crypto.generate_key_pair)


def test_keypairs(api, keys, assert_shape, schemas,  # noqa: F811
                  microversion, monkeypatch):
    monkeypatch.setattr(crypto, 'generate_key_pair', _ONE_KEY_PAIR)
    shapes = schemas('keypairs')
    member = api()
    keypair = {'name': 'k'}
    if api_version.APIVersionRequest(microversion).matches('2.92'):
        # Imported only from 2.92.
        keypair['public_key'] = _ONE_KEY_PAIR()[1]
    assert_shape(member('POST', '/os-keypairs', {'keypair': keypair}),
                 shapes.create_keypair)
    assert_shape(member('GET', '/os-keypairs'), shapes.list_keypairs)
    # Pages from 2.35, with keypairs_links when not the last.
    assert_shape(member('GET', '/os-keypairs?limit=1'),
                 shapes_conftest.with_links(shapes.list_keypairs,
                                            'keypairs_links'))
    assert_shape(member('GET', '/os-keypairs/k'), shapes.get_keypair)
    assert_shape(member('DELETE', '/os-keypairs/k'), shapes.delete_keypair)
    if api_version.APIVersionRequest(microversion).matches('2.10'):
        # Administrators name another user's key pairs.
        admin = api(ADMIN)
        keypair['user_id'] = 'demo'
        assert_shape(admin('POST', '/os-keypairs', {'keypair': keypair}),
                     shapes.create_keypair)
        assert_shape(admin('GET', '/os-keypairs?user_id=demo'),
                     shapes.list_keypairs)
        assert_shape(admin('GET', '/os-keypairs/k?user_id=demo'),
                     shapes.get_keypair)
        assert_shape(admin('DELETE', '/os-keypairs/k?user_id=demo'),
                     shapes.delete_keypair)


# Each power action, from a state it is allowed in.
POWER = (('os-stop', V.ACTIVE), ('os-start', V.STOPPED),
         ('pause', V.ACTIVE), ('unpause', V.PAUSED),
         ('suspend', V.ACTIVE), ('resume', V.SUSPENDED))


def test_power_actions(api, world, assert_shape, schemas):  # noqa: F811
    common = schemas('servers').server_actions_common_schema
    path = '/servers/%s/action' % UUID
    for name, vm_state in POWER:
        world.set_state(vm_state)
        assert_shape(api()('POST', path, {name: None}), common)
    world.set_state(V.ACTIVE)
    assert_shape(api(ADMIN)('POST', path,
                            {'os-resetState': {'state': 'error'}}), common)


def test_trigger_crash_dump(api, rpc, assert_shape, schemas,  # noqa: F811
                            microversion):
    resp = api()('POST', '/servers/%s/action' % UUID,
                 {'trigger_crash_dump': None})
    if not api_version.APIVersionRequest(microversion).matches('2.17'):
        assert resp.status_int == 400
        return
    assert_shape(resp, schemas('servers').server_actions_common_schema)
