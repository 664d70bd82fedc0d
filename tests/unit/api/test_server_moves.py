"""resize, confirmResize, revertResize and migrate: every transition,
every 409 and 400, and the quota reserved for a larger flavor.

The move API's checks run for real; the instance's conditional save,
the migration lookup, the quota engine, the action record and the RPC
clients are fakes, so nothing touches a database or a bus.
"""

import types

import pytest

from nova_lite.api.handlers import server_actions
from nova_lite.api.handlers import server_moves
from nova_lite.compute import move_api
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.quota import reservations
from tests.unit.api import conftest
from tests.unit.api import fakes

UUID = 'c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30'
ADMIN = conftest.make_context('admin', 'adminproj')
V = fields.VMState
T = fields.TaskState
FLAVORS = {'1': fakes.flavor('1', vcpus=1, memory_mb=512, root_gb=1),
           '2': fakes.flavor('2', name='m1.big', vcpus=2, memory_mb=2048,
                             root_gb=1),
           '3': fakes.flavor('3', name='m1.nodisk', root_gb=0)}


class FakeRPC:
    def __init__(self):
        self.sent = []
        self.speaks = True

    def can_send_moves(self):
        return self.speaks

    def __getattr__(self, name):
        def send(context, instance, *args, **kwargs):
            self.sent.append((name, instance.uuid, args, kwargs))
        return send


@pytest.fixture
def world(monkeypatch):
    w = types.SimpleNamespace(saves=[], actions=[], reserved=[],
                              rolled_back=[], migrations={})
    w.instance = fakes.instance(host='host1', node='node1',
                                vm_state=V.ACTIVE, task_state=None)
    w.instance.obj_reset_changes(recursive=True)
    w.stored = {'vm_state': V.ACTIVE, 'task_state': None}
    w.compute, w.conductor = FakeRPC(), FakeRPC()
    monkeypatch.setattr(server_actions, 'compute',
                        fakes.FakeComputeAPI([w.instance]))
    monkeypatch.setattr(server_moves.api, '_compute', w.compute)
    monkeypatch.setattr(server_moves.api, '_conductor', w.conductor)

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

    def get_flavor(context, flavorid):
        if flavorid not in FLAVORS:
            raise exception.FlavorNotFound(flavor_id=flavorid)
        return FLAVORS[flavorid]

    def get_migration(context, instance_uuid, status):
        migration = w.migrations.get(status)
        if migration is None:
            raise exception.MigrationNotFoundByStatus(
                instance_id=instance_uuid, status=status)
        return migration

    def reserve(context, project_id, user_id, deltas, **kwargs):
        if w.quota_full:
            raise exception.OverQuota(overs='cores', req=1, used=1,
                                      allowed=1)
        w.reserved.append(deltas)
        return reservations.Reservation('r1', project_id, user_id, 1,
                                        deltas)

    def get_service(context, host, binary):
        if host != 'host2':
            raise exception.HostBinaryNotFound(host=host, binary=binary)

    w.quota_full = False
    monkeypatch.setattr(objects.Instance, 'save', save)
    monkeypatch.setattr(objects.InstanceAction, 'create',
                        lambda self: w.actions.append(self.action))
    monkeypatch.setattr(objects.Flavor, 'get_by_flavor_id', get_flavor)
    monkeypatch.setattr(objects.Migration, 'get_by_instance_and_status',
                        get_migration)
    monkeypatch.setattr(objects.Migration, 'save',
                        lambda self: w.saves.append(
                            {'migration': self.status}))
    monkeypatch.setattr(objects.Service, 'get_by_host_and_binary',
                        get_service)
    monkeypatch.setattr(reservations, 'reserve', reserve)
    monkeypatch.setattr(reservations, 'rollback',
                        lambda c, uuid: w.rolled_back.append(uuid))

    def set_state(vm_state, task_state=None):
        w.instance.vm_state = vm_state
        w.instance.task_state = task_state
        w.instance.obj_reset_changes(recursive=True)
        w.stored.update(vm_state=vm_state, task_state=task_state)
    w.set_state = set_state
    return w


def _act(api, body, context=ADMIN, version=None):
    headers = ({'OpenStack-API-Version': 'compute ' + version}
               if version else None)
    return api(context)('POST', '/servers/%s/action' % UUID, body,
                        headers=headers)


def _resized(world):
    world.set_state(V.RESIZED)
    world.migrations['finished'] = objects.Migration(
        uuid='5b0e3c7a-8f7d-4b0e-9d3f-2a1c6e4b7d90', instance_uuid=UUID,
        status='finished')


@pytest.mark.parametrize('vm_state', [V.ACTIVE, V.STOPPED])
def test_resize_up_reserves_the_difference_and_casts(api, world, vm_state):
    world.set_state(vm_state)
    resp = _act(api, {'resize': {'flavorRef': '2'}},
                conftest.make_context())
    assert resp.status_int == 202, resp.text
    assert world.stored['task_state'] == T.RESIZE_PREP
    assert world.reserved == [{'cores': 1, 'ram': 1536}]
    assert world.actions == ['resize']
    [(name, uuid, args, kwargs)] = world.conductor.sent
    assert (name, uuid, args[0].flavorid) == ('migrate_server', UUID, '2')
    assert kwargs['reservation']['deltas'] == {'cores': 1, 'ram': 1536}


def test_resize_down_reserves_nothing(api, world):
    world.instance.flavor = FLAVORS['2']
    world.instance.obj_reset_changes(recursive=True)
    resp = _act(api, {'resize': {'flavorRef': '1'}})
    assert resp.status_int == 202, resp.text
    assert world.reserved == []
    assert world.conductor.sent[0][3]['reservation'] is None


@pytest.mark.parametrize('vm_state,task_state', [
    (V.PAUSED, None), (V.ERROR, None), (V.RESIZED, None),
    (V.ACTIVE, T.REBOOTING), (V.ACTIVE, T.RESIZE_PREP)])
def test_resize_from_a_wrong_state_is_409(api, world, vm_state,
                                          task_state):
    world.set_state(vm_state, task_state)
    resp = _act(api, {'resize': {'flavorRef': '2'}})
    assert resp.status_int == 409, resp.text
    assert "Cannot 'resize' instance" in resp.text
    assert world.conductor.sent == [] and world.reserved == []


@pytest.mark.parametrize('flavor,message', [
    ('1', 'When resizing, instances must change flavor!'),
    ('nope', 'Unable to find flavor nope'),
    ('3', 'smaller root disk')])
def test_resize_bad_flavor_is_400(api, world, flavor, message):
    resp = _act(api, {'resize': {'flavorRef': flavor}})
    assert resp.status_int == 400, resp.text
    assert message in resp.text
    assert world.saves == [] and world.conductor.sent == []


def test_resize_without_flavor_is_400(api, world):
    resp = _act(api, {'resize': {}})
    assert resp.status_int == 400
    assert world.saves == []


def test_resize_over_quota_is_403_with_nothing_written(api, world):
    world.quota_full = True
    resp = _act(api, {'resize': {'flavorRef': '2'}})
    assert resp.status_int == 403, resp.text
    assert world.saves == [] and world.conductor.sent == []


def test_resize_losing_a_race_rolls_the_reservation_back(api, world):
    # Read ACTIVE, but a reboot started meanwhile.
    world.stored['task_state'] = T.REBOOTING
    resp = _act(api, {'resize': {'flavorRef': '2'}})
    assert resp.status_int == 409, resp.text
    assert world.rolled_back == ['r1']
    assert world.conductor.sent == []


def test_moves_are_409_while_the_services_are_pinned(api, world):
    world.compute.speaks = False
    resp = _act(api, {'resize': {'flavorRef': '2'}})
    assert resp.status_int == 409, resp.text
    assert 'upgrade_levels' in resp.text
    assert world.saves == [] and world.reserved == []


def test_migrate_is_for_administrators(api, world):
    resp = _act(api, {'migrate': None}, conftest.make_context())
    assert resp.status_int == 403
    assert world.saves == []


def test_migrate_casts_with_the_same_flavor(api, world):
    resp = _act(api, {'migrate': None})
    assert resp.status_int == 202, resp.text
    assert world.stored['task_state'] == T.RESIZE_PREP
    assert world.actions == ['migrate']
    [(name, _uuid, args, kwargs)] = world.conductor.sent
    assert (name, args[0].flavorid, kwargs['host']) == (
        'migrate_server', '1', None)


def test_migrate_to_a_named_host(api, world):
    resp = _act(api, {'migrate': {'host': 'host2'}}, version='2.56')
    assert resp.status_int == 202, resp.text
    assert world.conductor.sent[0][3]['host'] == 'host2'


@pytest.mark.parametrize('body', [{'migrate': {'host': 'host2'}},
                                  {'migrate': {'host': None}},
                                  {'migrate': {'other': 1}}])
def test_migrate_takes_no_host_before_2_56(api, world, body):
    resp = _act(api, body, version='2.55')
    assert resp.status_int == 400, resp.text
    assert 'Additional properties' in resp.text
    assert world.saves == [] and world.conductor.sent == []


@pytest.mark.parametrize('version, body', [
    ('2.55', {'migrate': None}), ('2.55', {'migrate': {}}),
    ('2.56', {'migrate': None}), ('2.56', {'migrate': {'host': None}})])
def test_migrate_without_a_host_at_any_version(api, world, version, body):
    resp = _act(api, body, version=version)
    assert resp.status_int == 202, resp.text
    assert world.conductor.sent[0][3]['host'] is None


@pytest.mark.parametrize('host,message', [
    ('host1', 'Cannot migrate to the host where the server exists'),
    ('nowhere', 'Compute host nowhere could not be found')])
def test_migrate_to_a_bad_host_is_400(api, world, host, message):
    resp = _act(api, {'migrate': {'host': host}}, version='2.56')
    assert resp.status_int == 400, resp.text
    assert message in resp.text
    assert world.saves == [] and world.conductor.sent == []


def test_confirm_marks_the_migration_and_casts(api, world):
    _resized(world)
    resp = _act(api, {'confirmResize': None}, conftest.make_context())
    assert resp.status_int == 204, resp.text
    assert {'migration': 'confirming'} in world.saves
    assert world.actions == ['confirmResize']
    assert world.conductor.sent[0][0] == 'confirm_resize'


def test_revert_sets_reverting_and_casts(api, world):
    _resized(world)
    resp = _act(api, {'revertResize': None}, conftest.make_context())
    assert resp.status_int == 202, resp.text
    assert world.stored['task_state'] == T.RESIZE_REVERTING
    assert {'migration': 'reverting'} in world.saves
    assert world.actions == ['revertResize']
    assert world.conductor.sent[0][0] == 'revert_resize'


@pytest.mark.parametrize('action', ['confirmResize', 'revertResize'])
@pytest.mark.parametrize('vm_state', [V.ACTIVE, V.STOPPED, V.ERROR])
def test_confirm_or_revert_outside_verify_resize_is_409(api, world, action,
                                                        vm_state):
    world.set_state(vm_state)
    resp = _act(api, {action: None})
    assert resp.status_int == 409, resp.text
    assert "Cannot '%s' instance" % action in resp.text
    assert world.conductor.sent == []


@pytest.mark.parametrize('action', ['confirmResize', 'revertResize'])
def test_confirm_or_revert_without_a_finished_migration_is_400(
        api, world, action):
    world.set_state(V.RESIZED)
    resp = _act(api, {action: None})
    assert resp.status_int == 400, resp.text
    assert 'has not been resized' in resp.text
    assert world.conductor.sent == []


def test_upsize_deltas():
    assert move_api.upsize_deltas(FLAVORS['1'], FLAVORS['2']) == {
        'cores': 1, 'ram': 1536}
    assert move_api.upsize_deltas(FLAVORS['2'], FLAVORS['1']) == {}


def test_resize_to_a_private_flavor_needs_access(api, world, monkeypatch):
    """The owner may not resize to a private flavor their project was not
    given (it is unknown to them); an administrator may."""
    monkeypatch.setitem(FLAVORS, '4', fakes.flavor(
        '4', name='private', vcpus=2, memory_mb=1024, root_gb=1,
        is_public=False))
    monkeypatch.setattr(server_moves.flavors.flavor_obj,
                        'get_access_projects',
                        lambda ctxt, flavorid: ['someone-else'])
    owner = conftest.make_context()
    resp = _act(api, {'resize': {'flavorRef': '4'}}, context=owner)
    assert resp.status_int == 400, resp.text
    assert 'Unable to find flavor 4' in resp.text
    assert world.conductor.sent == [] and world.reserved == []
    resp = _act(api, {'resize': {'flavorRef': '4'}})
    assert resp.status_int == 202, resp.text
