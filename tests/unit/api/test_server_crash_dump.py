"""trigger_crash_dump (microversion 2.17): the gate, the states, the lock,
the pin and the cast."""

import pytest

from nova_lite.api.handlers import server_power
from nova_lite.objects import fields
from tests.unit.api import conftest
from tests.unit.api.test_server_actions import world  # noqa: F401

UUID = 'c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30'
ADMIN = conftest.make_context('admin', 'adminproj')
V = fields.VMState
T = fields.TaskState
BODY = {'trigger_crash_dump': None}


class CrashDumpRPC:
    def __init__(self):
        self.sent = []
        self.speaks = True

    def can_send_crash_dump(self):
        return self.speaks

    def trigger_crash_dump(self, context, instance):
        self.sent.append(instance.uuid)


@pytest.fixture
def rpc(world, monkeypatch):  # noqa: F811
    fake = CrashDumpRPC()
    monkeypatch.setattr(server_power.api, '_compute', fake)
    return fake


def _dump(api, at_version, version='2.17', context=None, body=BODY):
    return at_version(api(context), version)(
        'POST', '/servers/%s/action' % UUID, body)


def test_unknown_before_2_17(api, at_version, world, rpc):  # noqa: F811
    resp = _dump(api, at_version, '2.16')
    assert resp.status_int == 400
    assert rpc.sent == [] and world.actions == []


@pytest.mark.parametrize('vm_state', [V.ACTIVE, V.PAUSED, V.RESIZED,
                                      V.ERROR])
def test_casts_and_records(api, at_version, world, rpc,  # noqa: F811
                           vm_state):
    world.set_state(vm_state)
    resp = _dump(api, at_version)
    assert resp.status_int == 202 and resp.body == b''
    assert rpc.sent == [UUID]
    assert world.actions == ['trigger_crash_dump']
    assert world.saves == []


@pytest.mark.parametrize('vm_state,task_state', [
    (V.STOPPED, None), (V.BUILDING, T.SPAWNING), (V.ACTIVE, T.REBOOTING)])
def test_other_states_are_409(api, at_version, world, rpc,  # noqa: F811
                              vm_state, task_state):
    world.set_state(vm_state, task_state)
    assert _dump(api, at_version).status_int == 409
    assert rpc.sent == [] and world.actions == []


def test_locked_is_409_for_the_owner_not_admins(
        api, at_version, world, rpc):  # noqa: F811
    world.set_state(V.ACTIVE, locked=True)
    assert _dump(api, at_version).status_int == 409
    assert _dump(api, at_version, context=ADMIN).status_int == 202
    assert rpc.sent == [UUID]


def test_a_compute_too_old_is_409(api, at_version, world,  # noqa: F811
                                  rpc):
    rpc.speaks = False
    assert _dump(api, at_version).status_int == 409
    assert rpc.sent == [] and world.actions == []


def test_body_must_be_null(api, at_version, world, rpc):  # noqa: F811
    assert _dump(api, at_version,
                 body={'trigger_crash_dump': {}}).status_int == 400
