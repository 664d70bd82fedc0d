"""rebuild and evacuate at the API: every transition it makes, every
409 and 400, the microversion gates of their arguments and the pins.

The rebuild API's checks run for real; the instance's conditional save,
the image registry, key pairs, services, the migration, the action
record and the RPC clients are fakes: nothing touches a database or a
bus.
"""

import types

import pytest

from nova_lite.api.handlers import server_actions
from nova_lite.api.handlers import server_rebuild
from nova_lite.compute import rebuild_api
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.quota import limits as quota_limits
from tests.unit.api import conftest
from tests.unit.api import fakes

UUID = 'c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30'
OLD_IMAGE = '70a599e0-31e7-49b7-b260-868f441e862b'
NEW_IMAGE = '3f1c3b8e-7c52-4d0a-9a3b-2a1e4c6d8f90'
ADMIN = conftest.make_context('admin', 'adminproj')
MEMBER = conftest.make_context()
V = fields.VMState
T = fields.TaskState


class FakeRPC:
    def __init__(self):
        self.sent = []
        self.speaks = True

    def can_send_rebuild(self):
        return self.speaks

    def __getattr__(self, name):
        def send(context, instance, *args, **kwargs):
            self.sent.append((name, instance.uuid, args, kwargs))
        return send


@pytest.fixture
def world(monkeypatch):
    w = types.SimpleNamespace(saves=[], actions=[], migrations=[],
                              images={OLD_IMAGE: fakes.image(),
                                      NEW_IMAGE: fakes.image(NEW_IMAGE)},
                              keypairs={'mykey'}, up={'host1': True},
                              metadata_items=128)
    w.instance = fakes.instance(host='host1', node='node1',
                                vm_state=V.ACTIVE, task_state=None)
    w.instance.obj_reset_changes(recursive=True)
    w.stored = {'vm_state': V.ACTIVE, 'task_state': None}
    w.compute, w.conductor = FakeRPC(), FakeRPC()
    monkeypatch.setattr(server_actions, 'compute',
                        fakes.FakeComputeAPI([w.instance]))
    monkeypatch.setattr(server_rebuild.api, '_compute', w.compute)
    monkeypatch.setattr(server_rebuild.api, '_conductor', w.conductor)

    def save(self, expected_task_state=None, expected_vm_state=None):
        if expected_task_state is not None and (
                w.stored['task_state'] not in expected_task_state):
            raise exception.UnexpectedTaskStateError(
                instance_uuid=self.uuid, expected=expected_task_state,
                actual=w.stored['task_state'])
        if expected_vm_state is not None and (
                w.stored['vm_state'] not in expected_vm_state):
            raise exception.InstanceInvalidState(
                instance_uuid=self.uuid, attr='vm_state',
                state=w.stored['vm_state'], method='save')
        changes = self.obj_get_changes()
        w.saves.append(changes)
        w.stored.update(changes)
        self.obj_reset_changes()

    def get_image(context, image_id):
        if image_id not in w.images:
            raise exception.ImageNotFound(image_id=image_id)
        return w.images[image_id]

    def get_keypair(context, user_id, name):
        if name not in w.keypairs:
            raise exception.KeypairNotFound(name=name, user_id=user_id)

    def get_service(context, host, binary):
        if host not in w.up:
            raise exception.HostBinaryNotFound(host=host, binary=binary)
        return types.SimpleNamespace(host=host, is_up=w.up[host])

    def get_limits(context, project_id, user_id, quota_class=None):
        return {}, {'metadata_items': w.metadata_items}

    monkeypatch.setattr(objects.Instance, 'save', save)
    # From 2.75 a rebuild answers the view of show: its host_status too.
    monkeypatch.setattr(objects.ServiceList, 'get_all', classmethod(
        lambda cls, context, binary=None, host=None: [
            types.SimpleNamespace(host=h, forced_down=False,
                                  disabled=False, is_up=up)
            for h, up in w.up.items()]))
    monkeypatch.setattr(objects.InstanceAction, 'create',
                        lambda self: w.actions.append(self.action))
    monkeypatch.setattr(objects.Migration, 'create',
                        lambda self: w.migrations.append(self))
    monkeypatch.setattr(rebuild_api.image_api, 'get', get_image)
    monkeypatch.setattr(objects.KeyPair, 'get_by_name', get_keypair)
    monkeypatch.setattr(objects.Service, 'get_by_host_and_binary',
                        get_service)
    monkeypatch.setattr(quota_limits, 'get_limits', get_limits)

    def set_state(vm_state, task_state=None, locked=False):
        w.instance.vm_state = vm_state
        w.instance.task_state = task_state
        w.instance.locked = locked
        w.instance.obj_reset_changes(recursive=True)
        w.stored.update(vm_state=vm_state, task_state=task_state)
    w.set_state = set_state
    return w


@pytest.fixture
def newer():
    """The header for a version (up to the API's real maximum)."""
    return lambda version: {'OpenStack-API-Version': 'compute ' + version}


def _act(api, body, context=ADMIN, headers=None):
    return api(context)('POST', '/servers/%s/action' % UUID, body,
                        headers=headers)


# -- rebuild ---------------------------------------------------------------

@pytest.mark.parametrize('vm_state', [V.ACTIVE, V.STOPPED, V.ERROR])
def test_rebuild_sets_rebuilding_and_casts(api, world, vm_state):
    world.set_state(vm_state)
    resp = _act(api, {'rebuild': {'imageRef': NEW_IMAGE, 'name': 'new',
                                  'adminPass': 'pw',
                                  'metadata': {'a': 'b'}}}, MEMBER)
    assert resp.status_int == 202, resp.text
    server = resp.json['server']
    assert server['status'] == 'REBUILD'
    assert server['adminPass'] == 'pw'
    assert server['image']['id'] == NEW_IMAGE
    assert (server['name'], server['metadata']) == ('new', {'a': 'b'})
    assert world.stored['task_state'] == T.REBUILDING
    assert world.stored['image_ref'] == NEW_IMAGE
    assert world.actions == ['rebuild']
    [(name, uuid, args, kwargs)] = world.conductor.sent
    assert (name, uuid, args) == ('rebuild_instance', UUID,
                                  (NEW_IMAGE, OLD_IMAGE))
    assert kwargs['new_pass'] == 'pw'
    assert kwargs['preserve_ephemeral'] is False


def test_rebuild_generates_a_password(api, world):
    resp = _act(api, {'rebuild': {'imageRef': OLD_IMAGE}})
    assert resp.status_int == 202, resp.text
    assert len(resp.json['server']['adminPass']) >= 8


@pytest.mark.parametrize('vm_state,task_state', [
    (V.PAUSED, None), (V.SUSPENDED, None), (V.RESIZED, None),
    (V.BUILDING, None), (V.ACTIVE, T.REBOOTING), (V.ACTIVE, T.REBUILDING)])
def test_rebuild_from_a_wrong_state_is_409(api, world, vm_state,
                                           task_state):
    world.set_state(vm_state, task_state)
    resp = _act(api, {'rebuild': {'imageRef': NEW_IMAGE}})
    assert resp.status_int == 409, resp.text
    assert "Cannot 'rebuild' instance" in resp.text
    assert world.saves == [] and world.conductor.sent == []


def test_rebuild_of_a_locked_server_is_409_for_its_owner(api, world):
    world.set_state(V.ACTIVE, locked=True)
    resp = _act(api, {'rebuild': {'imageRef': NEW_IMAGE}}, MEMBER)
    assert resp.status_int == 409, resp.text
    assert 'is locked' in resp.text
    # An administrator may.
    assert _act(api, {'rebuild': {'imageRef': NEW_IMAGE}}).status_int == 202


def test_rebuild_losing_a_race_is_409_with_nothing_sent(api, world):
    world.stored['task_state'] = T.POWERING_OFF
    resp = _act(api, {'rebuild': {'imageRef': NEW_IMAGE}})
    assert resp.status_int == 409, resp.text
    assert world.conductor.sent == [] and world.actions == []


@pytest.mark.parametrize('image,message', [
    ('nope', 'Cannot find requested image nope'),
    ('small', "Flavor's memory is too small for requested image")])
def test_rebuild_bad_image_is_400(api, world, image, message):
    world.images['small'] = fakes.image('small', min_ram=4096)
    resp = _act(api, {'rebuild': {'imageRef': image}})
    assert resp.status_int == 400, resp.text
    assert message in resp.text
    assert world.saves == [] and world.conductor.sent == []


def test_rebuild_image_href_is_accepted(api, world):
    resp = _act(api, {'rebuild': {
        'imageRef': 'http://glance/v2/images/%s' % NEW_IMAGE}})
    assert resp.status_int == 202, resp.text
    assert world.stored['image_ref'] == NEW_IMAGE


def test_rebuild_without_image_is_400(api, world):
    assert _act(api, {'rebuild': {'name': 'x'}}).status_int == 400
    assert world.saves == []


def test_rebuild_past_the_metadata_quota_is_403(api, world):
    world.metadata_items = 1
    resp = _act(api, {'rebuild': {'imageRef': NEW_IMAGE,
                                  'metadata': {'a': '1', 'b': '2'}}})
    assert resp.status_int == 403, resp.text
    assert world.saves == []


def test_rebuild_when_pinned_too_old_is_409(api, world):
    world.conductor.speaks = False
    resp = _act(api, {'rebuild': {'imageRef': NEW_IMAGE}})
    assert resp.status_int == 409, resp.text
    assert '1.4' in resp.text
    assert world.saves == []


def test_a_server_in_error_shows_rebuild_while_rebuilt(api, world):
    world.set_state(V.ERROR)
    resp = _act(api, {'rebuild': {'imageRef': NEW_IMAGE}})
    assert resp.json['server']['status'] == 'REBUILD'


def test_rebuild_of_a_server_without_host_is_409(api, world):
    world.instance.host = None
    world.instance.obj_reset_changes()
    assert _act(api, {'rebuild': {'imageRef': NEW_IMAGE}}).status_int == 409


@pytest.mark.parametrize('argument,value,version', [
    ('description', 'd', '2.19'),
    ('key_name', 'mykey', '2.54'),
    ('user_data', 'aGVsbG8=', '2.57'),
    ('hostname', 'new-host', '2.90'),
])
def test_rebuild_arguments_are_gated_by_microversion(api, world, newer,
                                                     argument, value,
                                                     version):
    body = {'rebuild': {'imageRef': NEW_IMAGE, argument: value}}
    major, minor = version.split('.')
    before = '%s.%d' % (major, int(minor) - 1)
    resp = _act(api, body, headers=newer(before))
    assert resp.status_int == 400, resp.text
    assert argument in resp.text
    assert world.conductor.sent == []
    resp = _act(api, body, headers=newer(version))
    assert resp.status_int == 202, resp.text
    assert world.stored[argument] == value


def test_rebuild_hostname_may_be_an_fqdn_from_2_94(api, world, newer):
    body = {'rebuild': {'imageRef': NEW_IMAGE,
                        'hostname': 'web.example.com'}}
    assert _act(api, body, headers=newer('2.93')).status_int == 400
    assert world.conductor.sent == []
    resp = _act(api, body, headers=newer('2.94'))
    assert resp.status_int == 202, resp.text
    assert world.stored['hostname'] == 'web.example.com'
    assert resp.json['server']['OS-EXT-SRV-ATTR:hostname'] == (
        'web.example.com')


def test_rebuild_personality_goes_with_2_57(api, world, newer):
    body = {'rebuild': {'imageRef': NEW_IMAGE, 'personality': []}}
    assert _act(api, body, headers=newer('2.56')).status_int == 202
    assert _act(api, body, headers=newer('2.57')).status_int == 400


def test_rebuild_unknown_key_name_is_400(api, world, newer):
    resp = _act(api, {'rebuild': {'imageRef': NEW_IMAGE,
                                  'key_name': 'nope'}},
                headers=newer('2.54'))
    assert resp.status_int == 400, resp.text
    assert 'Invalid key_name provided.' in resp.text


def test_rebuild_user_data_must_be_base64(api, world, newer):
    resp = _act(api, {'rebuild': {'imageRef': NEW_IMAGE,
                                  'user_data': 'not base64!'}},
                headers=newer('2.57'))
    assert resp.status_int == 400, resp.text


# -- evacuate --------------------------------------------------------------

def _down(world, host='host1'):
    world.up[host] = False


@pytest.mark.parametrize('vm_state', [V.ACTIVE, V.STOPPED, V.ERROR])
def test_evacuate_writes_the_migration_and_casts(api, world, vm_state):
    world.set_state(vm_state)
    _down(world)
    world.up['host2'] = True
    resp = _act(api, {'evacuate': {'host': 'host2',
                                   'onSharedStorage': False}})
    assert resp.status_int == 200, resp.text
    assert resp.json['adminPass']
    assert world.stored['task_state'] == T.REBUILDING
    assert world.actions == ['evacuate']
    [migration] = world.migrations
    assert (migration.migration_type, migration.status,
            migration.source_compute, migration.source_node) == (
        'evacuation', 'accepted', 'host1', 'node1')
    [(name, uuid, _args, kwargs)] = world.conductor.sent
    assert (name, kwargs['recreate'], kwargs['host']) == (
        'rebuild_instance', True, 'host2')
    assert kwargs['migration'] is migration
    assert kwargs['target_state'] is None


def test_evacuate_while_the_compute_is_up_is_400(api, world):
    resp = _act(api, {'evacuate': {'onSharedStorage': False}})
    assert resp.status_int == 400, resp.text
    assert 'Compute service of host1 is still in use.' in resp.text
    assert world.saves == [] and world.migrations == []


@pytest.mark.parametrize('vm_state,task_state', [
    (V.PAUSED, None), (V.RESIZED, None), (V.BUILDING, None),
    (V.ACTIVE, T.REBOOTING)])
def test_evacuate_from_a_wrong_state_is_409(api, world, vm_state,
                                            task_state):
    world.set_state(vm_state, task_state)
    _down(world)
    resp = _act(api, {'evacuate': {'onSharedStorage': False}})
    assert resp.status_int == 409, resp.text
    assert "Cannot 'evacuate' instance" in resp.text
    assert world.migrations == []


def test_evacuate_to_an_unknown_host_is_404(api, world):
    _down(world)
    resp = _act(api, {'evacuate': {'host': 'nope',
                                   'onSharedStorage': False}})
    assert resp.status_int == 404, resp.text
    assert 'Compute host nope not found.' in resp.text


def test_evacuate_to_its_own_host_is_400(api, world):
    _down(world)
    resp = _act(api, {'evacuate': {'host': 'host1',
                                   'onSharedStorage': False}})
    assert resp.status_int == 400, resp.text
    assert "The target host can't be the same one." in resp.text


def test_evacuate_is_for_administrators(api, world):
    _down(world)
    resp = _act(api, {'evacuate': {'onSharedStorage': False}}, MEMBER)
    assert resp.status_int == 403, resp.text


def test_evacuate_when_pinned_too_old_is_409(api, world):
    _down(world)
    world.compute.speaks = False
    resp = _act(api, {'evacuate': {'onSharedStorage': False}})
    assert resp.status_int == 409, resp.text
    assert world.migrations == []


def test_evacuate_before_2_14_needs_on_shared_storage(api, world):
    _down(world)
    assert _act(api, {'evacuate': {}}).status_int == 400
    resp = _act(api, {'evacuate': {'onSharedStorage': True,
                                   'adminPass': 'pw'}})
    assert resp.status_int == 400, resp.text
    assert "admin password can't be changed on existing disk" in resp.text
    resp = _act(api, {'evacuate': {'onSharedStorage': True}})
    assert resp.status_int == 200, resp.text
    assert resp.json == {'adminPass': None}


def test_evacuate_from_2_14_answers_no_body(api, world, newer):
    _down(world)
    resp = _act(api, {'evacuate': {'onSharedStorage': False}},
                headers=newer('2.14'))
    assert resp.status_int == 400, resp.text
    resp = _act(api, {'evacuate': {'adminPass': 'pw'}},
                headers=newer('2.14'))
    assert resp.status_int == 200, resp.text
    assert resp.body == b''
    assert world.conductor.sent[0][3]['new_pass'] == 'pw'


def test_evacuate_force_is_taken_from_2_29_to_2_67(api, world, newer):
    _down(world)
    world.up['host2'] = True
    body = {'evacuate': {'host': 'host2', 'force': True}}
    assert _act(api, body, headers=newer('2.28')).status_int == 400
    assert _act(api, body, headers=newer('2.68')).status_int == 400
    world.set_state(V.ACTIVE)
    resp = _act(api, body, headers=newer('2.29'))
    assert resp.status_int == 200, resp.text
    # Never forced: the host goes to the scheduler like any named one.
    assert world.conductor.sent[0][3]['host'] == 'host2'
    world.set_state(V.ACTIVE)
    resp = _act(api, {'evacuate': {'force': True}}, headers=newer('2.29'))
    assert resp.status_int == 400, resp.text
    assert "Can't force to a non-provided destination" in resp.text


def test_evacuate_from_2_95_lands_stopped(api, world, newer):
    _down(world)
    resp = _act(api, {'evacuate': {}}, headers=newer('2.95'))
    assert resp.status_int == 200, resp.text
    assert world.conductor.sent[0][3]['target_state'] == V.STOPPED
    world.set_state(V.ACTIVE)
    _act(api, {'evacuate': {}}, headers=newer('2.94'))
    assert world.conductor.sent[1][3]['target_state'] is None


@pytest.mark.parametrize('version, shown', [('2.53', False),
                                            ('2.54', True)])
def test_rebuild_answers_key_name_from_2_54(api, world, at_version,
                                            version, shown):
    world.instance.key_name = 'oldkey'
    world.instance.obj_reset_changes()
    resp = at_version(api(ADMIN), version)(
        'POST', '/servers/%s/action' % UUID,
        {'rebuild': {'imageRef': NEW_IMAGE}})
    assert resp.status_int == 202, resp.text
    server = resp.json['server']
    assert ('key_name' in server) is shown
    if shown:
        assert server['key_name'] == 'oldkey'


def test_rebuild_with_a_null_key_name_unsets_it(api, world, at_version):
    world.instance.key_name = 'oldkey'
    world.instance.obj_reset_changes()
    resp = at_version(api(ADMIN), '2.54')(
        'POST', '/servers/%s/action' % UUID,
        {'rebuild': {'imageRef': NEW_IMAGE, 'key_name': None}})
    assert resp.status_int == 202, resp.text
    assert resp.json['server']['key_name'] is None
    assert world.stored['key_name'] is None
    resp = at_version(api(ADMIN), '2.54')(
        'POST', '/servers/%s/action' % UUID,
        {'rebuild': {'imageRef': NEW_IMAGE, 'key_name': ''}})
    assert resp.status_int == 400


@pytest.mark.parametrize('version, shown', [('2.56', False),
                                            ('2.57', True)])
def test_rebuild_answers_user_data_from_2_57(api, world, at_version,
                                             version, shown):
    resp = at_version(api(ADMIN), version)(
        'POST', '/servers/%s/action' % UUID,
        {'rebuild': {'imageRef': NEW_IMAGE}})
    assert resp.status_int == 202, resp.text
    assert ('user_data' in resp.json['server']) is shown


def test_rebuild_answers_the_kept_user_data(api, world, at_version):
    world.instance.user_data = 'b2xk'
    world.instance.obj_reset_changes()
    resp = at_version(api(ADMIN), '2.57')(
        'POST', '/servers/%s/action' % UUID,
        {'rebuild': {'imageRef': NEW_IMAGE}})
    assert resp.status_int == 202, resp.text
    assert resp.json['server']['user_data'] == 'b2xk'
    assert 'user_data' not in world.stored


@pytest.mark.parametrize('value', ['aGVsbG8=', None])
def test_rebuild_user_data_replaces_the_servers(api, world, at_version,
                                                value):
    world.instance.user_data = 'b2xk'
    world.instance.obj_reset_changes()
    resp = at_version(api(ADMIN), '2.57')(
        'POST', '/servers/%s/action' % UUID,
        {'rebuild': {'imageRef': NEW_IMAGE, 'user_data': value}})
    assert resp.status_int == 202, resp.text
    assert world.stored['user_data'] == value
    assert resp.json['server']['user_data'] == value


def test_rebuild_at_2_75_shows_user_data_once(api, world, at_version):
    """The full view of 2.75 keeps user_data as its own key, not as the
    administrators' extended attribute (as Nova answers a rebuild)."""
    resp = at_version(api(ADMIN), '2.75')(
        'POST', '/servers/%s/action' % UUID,
        {'rebuild': {'imageRef': NEW_IMAGE, 'user_data': 'aGVsbG8='}})
    assert resp.status_int == 202, resp.text
    server = resp.json['server']
    assert server['user_data'] == 'aGVsbG8='
    assert 'OS-EXT-SRV-ATTR:user_data' not in server
    assert 'OS-EXT-SRV-ATTR:hostname' in server


def test_rebuild_trusted_certs_from_2_63(api, world, at_version):
    world.instance.trusted_certs = ['old']
    world.instance.obj_reset_changes()
    act = at_version(api(ADMIN), '2.63')
    path = '/servers/%s/action' % UUID
    resp = act('POST', path, {'rebuild': {'imageRef': NEW_IMAGE}})
    assert resp.json['server']['trusted_image_certificates'] == ['old']
    world.set_state(V.ACTIVE)
    resp = act('POST', path, {'rebuild': {
        'imageRef': NEW_IMAGE, 'trusted_image_certificates': ['a', 'b']}})
    assert resp.status_int == 202, resp.text
    assert world.stored['trusted_certs'] == ['a', 'b']
    assert resp.json['server']['trusted_image_certificates'] == ['a', 'b']
    world.set_state(V.ACTIVE)
    resp = act('POST', path, {'rebuild': {
        'imageRef': NEW_IMAGE, 'trusted_image_certificates': None}})
    assert resp.json['server']['trusted_image_certificates'] is None
    resp = at_version(api(ADMIN), '2.62')('POST', path, {'rebuild': {
        'imageRef': NEW_IMAGE, 'trusted_image_certificates': ['a']}})
    assert resp.status_int == 400
