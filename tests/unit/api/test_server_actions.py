"""POST /servers/{id}/action: dispatch, every transition and every 409.

The compute API's checks run for real; the instance's conditional save,
the action record and the compute RPC are fakes, so nothing touches a
database or a bus.
"""

import pytest

from nova_lite.api.handlers import server_actions
from nova_lite.api.handlers import server_power
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from tests.unit.api import conftest
from tests.unit.api import fakes

UUID = 'c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30'
ADMIN = conftest.make_context('admin', 'adminproj')
V = fields.VMState
T = fields.TaskState


class FakeComputeRPC:
    def __init__(self):
        self.sent = []
        self.speaks_actions = True

    def can_send_actions(self):
        return self.speaks_actions

    def __getattr__(self, name):
        if not name.endswith('_instance'):
            raise AttributeError(name)

        def send(context, instance, *args):
            self.sent.append((name, instance.uuid, args))
        return send


@pytest.fixture
def world(monkeypatch):
    """The server (ACTIVE on host1), the saves, actions and casts."""
    state = type('World', (), {})()
    state.instance = fakes.instance(host='host1', node='node1',
                                    vm_state=V.ACTIVE, task_state=None,
                                    locked=False, locked_by=None,
                                    locked_reason=None)
    state.instance.obj_reset_changes(recursive=True)
    state.saves, state.actions = [], []
    state.rpc = FakeComputeRPC()
    compute = fakes.FakeComputeAPI([state.instance])
    monkeypatch.setattr(server_actions, 'compute', compute)
    monkeypatch.setattr(server_power.api, '_compute', state.rpc)

    def save(self, expected_task_state=None, expected_vm_state=None):
        stored = state.stored
        if expected_task_state is not None and (
                stored['task_state'] not in expected_task_state):
            raise exception.UnexpectedTaskStateError(
                instance_uuid=self.uuid, expected=expected_task_state,
                actual=stored['task_state'])
        if expected_vm_state is not None and (
                stored['vm_state'] not in expected_vm_state):
            raise exception.InstanceInvalidState(
                instance_uuid=self.uuid, attr='vm_state',
                state=stored['vm_state'], method='save')
        changes = self.obj_get_changes()
        state.saves.append(changes)
        stored.update(changes)
        self.obj_reset_changes()

    def create(self):
        state.actions.append(self.action)
    monkeypatch.setattr(objects.Instance, 'save', save)
    monkeypatch.setattr(objects.InstanceAction, 'create', create)
    state.stored = {'vm_state': V.ACTIVE, 'task_state': None}

    def set_state(vm_state, task_state=None, **values):
        state.instance.vm_state = vm_state
        state.instance.task_state = task_state
        for name, value in values.items():
            setattr(state.instance, name, value)
        state.instance.obj_reset_changes(recursive=True)
        state.stored.update(vm_state=vm_state, task_state=task_state)
    state.set_state = set_state
    return state


def _act(api, body, context=None, uuid=UUID):
    return api(context)('POST', '/servers/%s/action' % uuid, body)


# (action body, allowed vm_state, task_state set, RPC method, action name)
TRANSITIONS = [
    ({'reboot': {'type': 'SOFT'}}, V.ACTIVE, T.REBOOTING, 'reboot_instance',
     'reboot'),
    ({'reboot': {'type': 'hard'}}, V.STOPPED, T.REBOOTING_HARD,
     'reboot_instance', 'reboot'),
    ({'reboot': {'type': 'HARD'}}, V.ERROR, T.REBOOTING_HARD,
     'reboot_instance', 'reboot'),
    ({'os-stop': None}, V.ACTIVE, T.POWERING_OFF, 'stop_instance', 'stop'),
    ({'os-stop': None}, V.ERROR, T.POWERING_OFF, 'stop_instance', 'stop'),
    ({'os-start': None}, V.STOPPED, T.POWERING_ON, 'start_instance',
     'start'),
    ({'pause': None}, V.ACTIVE, T.PAUSING, 'pause_instance', 'pause'),
    ({'unpause': None}, V.PAUSED, T.UNPAUSING, 'unpause_instance',
     'unpause'),
    ({'suspend': None}, V.ACTIVE, T.SUSPENDING, 'suspend_instance',
     'suspend'),
    ({'resume': None}, V.SUSPENDED, T.RESUMING, 'resume_instance',
     'resume'),
]


@pytest.mark.parametrize('body,vm_state,task_state,method,name',
                         TRANSITIONS)
def test_action_sets_task_state_records_and_casts(api, world, body,
                                                   vm_state, task_state,
                                                   method, name):
    world.set_state(vm_state)
    resp = _act(api, body)
    assert resp.status_int == 202
    assert resp.body == b''
    assert world.stored['task_state'] == task_state
    assert world.stored['vm_state'] == vm_state
    assert world.actions == [name]
    assert [s[0] for s in world.rpc.sent] == [method]


# Every vm_state each action refuses, with no task running.
REFUSED = {
    'reboot-soft': ({'reboot': {'type': 'SOFT'}},
                    [V.STOPPED, V.PAUSED, V.SUSPENDED, V.ERROR,
                     V.BUILDING]),
    'reboot-hard': ({'reboot': {'type': 'HARD'}}, [V.BUILDING, V.RESIZED,
                                                   V.SHELVED_OFFLOADED]),
    'os-stop': ({'os-stop': None}, [V.STOPPED, V.PAUSED, V.SUSPENDED,
                                    V.BUILDING]),
    'os-start': ({'os-start': None}, [V.ACTIVE, V.PAUSED, V.ERROR,
                                      V.BUILDING]),
    'pause': ({'pause': None}, [V.STOPPED, V.PAUSED, V.SUSPENDED, V.ERROR]),
    'unpause': ({'unpause': None}, [V.ACTIVE, V.STOPPED, V.SUSPENDED]),
    'suspend': ({'suspend': None}, [V.STOPPED, V.PAUSED, V.SUSPENDED]),
    'resume': ({'resume': None}, [V.ACTIVE, V.STOPPED, V.PAUSED]),
}
REFUSED_CASES = [(key, body, vm_state)
                 for key, (body, states) in REFUSED.items()
                 for vm_state in states]


@pytest.mark.parametrize('key,body,vm_state', REFUSED_CASES)
def test_wrong_vm_state_is_409_in_novas_words(api, world, key, body,
                                               vm_state):
    world.set_state(vm_state)
    resp = _act(api, body)
    assert resp.status_int == 409
    name = next(iter(body))
    action = {'os-stop': 'stop', 'os-start': 'start'}.get(name, name)
    assert resp.json['conflictingRequest']['message'] == (
        "Cannot '%s' instance %s while it is in vm_state %s"
        % (action, UUID, vm_state))
    assert world.saves == [] and world.actions == [] and world.rpc.sent == []


@pytest.mark.parametrize('body', [b[0] for b in TRANSITIONS])
def test_a_running_task_is_409(api, world, body):
    world.set_state(V.ACTIVE, T.REBOOTING)
    world.instance.vm_state = V.STOPPED if 'os-start' in body else (
        V.PAUSED if 'unpause' in body else V.SUSPENDED if 'resume' in body
        else world.instance.vm_state)
    world.stored['vm_state'] = world.instance.vm_state
    resp = _act(api, body)
    assert resp.status_int == 409
    assert 'task_state rebooting' in resp.json['conflictingRequest'][
        'message']
    assert world.rpc.sent == []


def test_a_task_started_meanwhile_is_409(api, world):
    # Read with no task; another request set one before our save.
    world.stored['task_state'] = T.POWERING_OFF
    resp = _act(api, {'reboot': {'type': 'SOFT'}})
    assert resp.status_int == 409
    assert resp.json['conflictingRequest']['message'] == (
        "Cannot 'reboot' instance %s while it is in task_state "
        "powering-off" % UUID)
    assert world.rpc.sent == [] and world.actions == []


def test_unknown_action_is_400_naming_it(api, world):
    resp = _act(api, {'fly': {}})
    assert resp.status_int == 400
    assert 'fly' in resp.json['badRequest']['message']


def test_several_actions_is_400(api, world):
    resp = _act(api, {'pause': None, 'suspend': None})
    assert resp.status_int == 400
    assert 'pause, suspend' in resp.json['badRequest']['message']


@pytest.mark.parametrize('body', [{'reboot': {}}, {'reboot': {'type': 'x'}},
                                  {'reboot': None},
                                  {'os-resetState': {'state': 'stopped'}},
                                  {'lock': {'locked_reason': ''}}])
def test_bad_arguments_are_400(api, world, body):
    resp = _act(api, body, ADMIN)
    assert resp.status_int == 400
    assert world.saves == []


def test_unknown_server_is_404(api, world):
    resp = _act(api, {'pause': None},
                uuid='9d7b7f3a-3b6c-4a44-9d1f-2b1c3d4e5f60')
    assert resp.status_int == 404


def test_another_projects_server_is_404(api, world):
    other = conftest.make_context('eve', 'proj2')
    assert _act(api, {'pause': None}, other).status_int == 404


def test_reader_may_not_act(api, world):
    reader = conftest.make_context('viewer', 'proj1', roles=['reader'])
    assert _act(api, {'os-stop': None}, reader).status_int == 403
    assert world.saves == []


def test_a_server_with_no_host_cannot_be_acted_on(api, world):
    world.set_state(V.ACTIVE, host=None)
    resp = _act(api, {'os-stop': None})
    assert resp.status_int == 409


def test_computes_pinned_below_actions_is_409(api, world):
    world.rpc.speaks_actions = False
    resp = _act(api, {'os-stop': None})
    assert resp.status_int == 409
    assert 'upgrade_levels' in resp.json['conflictingRequest']['message']
    assert world.saves == []


class TestLock:
    def test_lock_with_reason_by_owner(self, api, world):
        resp = _act(api, {'lock': {'locked_reason': 'maintenance'}})
        assert resp.status_int == 202
        assert world.saves == [{'locked': True, 'locked_by': 'owner',
                                'locked_reason': 'maintenance'}]
        assert world.actions == ['lock']

    def test_locked_server_refuses_its_owner(self, api, world):
        world.set_state(V.ACTIVE, locked=True, locked_by='owner')
        for body in (b[0] for b in TRANSITIONS[:1]):
            resp = _act(api, body)
            assert resp.status_int == 409
            assert resp.json['conflictingRequest']['message'] == (
                'Instance %s is locked' % UUID)
        assert world.rpc.sent == []

    def test_admin_acts_on_a_locked_server(self, api, world):
        world.set_state(V.ACTIVE, locked=True, locked_by='owner')
        assert _act(api, {'os-stop': None}, ADMIN).status_int == 202
        assert world.rpc.sent[0][0] == 'stop_instance'

    def test_admin_lock_is_admins(self, api, world):
        _act(api, {'lock': None}, ADMIN)
        assert world.saves[0]['locked_by'] == 'admin'

    def test_owner_cannot_unlock_an_admin_lock(self, api, world):
        world.set_state(V.ACTIVE, locked=True, locked_by='admin')
        assert _act(api, {'unlock': None}).status_int == 403
        assert world.saves == []

    def test_owner_unlocks_own_lock_and_admin_any(self, api, world):
        world.set_state(V.ACTIVE, locked=True, locked_by='owner',
                        locked_reason='r')
        assert _act(api, {'unlock': None}).status_int == 202
        assert world.saves[-1] == {'locked': False, 'locked_by': None,
                                   'locked_reason': None}
        world.set_state(V.ACTIVE, locked=True, locked_by='owner')
        assert _act(api, {'unlock': None}, ADMIN).status_int == 202
        assert world.actions == ['unlock', 'unlock']


class TestResetState:
    @pytest.mark.parametrize('state,vm_state', [('active', V.ACTIVE),
                                                ('error', V.ERROR)])
    def test_admin_resets_state_and_task(self, api, world, state,
                                         vm_state):
        world.set_state(V.STOPPED, T.POWERING_ON)
        resp = _act(api, {'os-resetState': {'state': state}}, ADMIN)
        assert resp.status_int == 202
        assert world.saves == [{'vm_state': vm_state, 'task_state': None}]
        assert world.actions == ['resetState']

    def test_members_may_not(self, api, world):
        resp = _act(api, {'os-resetState': {'state': 'active'}})
        assert resp.status_int == 403

    def test_not_while_deleting(self, api, world):
        world.set_state(V.ACTIVE, T.DELETING)
        resp = _act(api, {'os-resetState': {'state': 'error'}}, ADMIN)
        assert resp.status_int == 409


def test_registry_refuses_a_name_twice():
    with pytest.raises(ValueError):
        server_actions.register({'reboot': ({}, None)})
