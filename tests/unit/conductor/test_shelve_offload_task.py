"""The offload of a shelved server, in the conductor: the task decides
what it writes (off, no host, no task) and frees the host, in one
transaction; the compute's 1.9 call and the older remotable save both
end there. The database steps are fakes; tests/functional/db runs them
on real databases."""

import contextlib
from unittest import mock

import pytest

from nova_lite.conductor import manager as conductor_manager
from nova_lite.conductor.tasks import shelve_offload
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields

UUID = '5d1c9a3e-2b7f-4e60-8a14-3f9e0c6b7d21'
T = fields.TaskState


@pytest.fixture
def w(monkeypatch):
    log = []

    @contextlib.contextmanager
    def using(context):
        log.append('begin')
        yield 'session'
        log.append('commit')

    def save(self, expected_task_state=None, expected_vm_state=None):
        log.append(('save', dict(self.obj_get_changes()),
                    expected_task_state))
        if isinstance(w_fail.get('save'), Exception):
            raise w_fail['save']
        self.obj_reset_changes()

    def remove_in_session(session, consumer):
        log.append(('remove', session, consumer))
        return {'rp-b', 'rp-a'}
    w_fail = {}
    monkeypatch.setattr(shelve_offload.db_api.writer, 'using', using)
    monkeypatch.setattr(objects.Instance, 'save', save)
    monkeypatch.setattr(shelve_offload.allocations, 'remove_in_session',
                        remove_in_session)
    return mock.Mock(log=log, fail=w_fail,
                     ctxt=nl_context.get_admin_context())


def _shelved():
    instance = objects.Instance(
        uuid=UUID, vm_state=fields.VMState.SHELVED,
        task_state=T.SHELVING_OFFLOADING, power_state=1, host='h1',
        node='h1-n0', compute_node_uuid=UUID)
    instance.obj_reset_changes()
    return instance


def test_offload_saves_off_and_hostless_and_frees_the_host_together(w):
    instance = _shelved()
    assert shelve_offload.offload(w.ctxt, instance) == ['rp-a', 'rp-b']
    assert w.log == [
        'begin',
        ('save', {'vm_state': 'shelved_offloaded', 'power_state': 4,
                  'task_state': None, 'host': None, 'node': None,
                  'compute_node_uuid': None}, [T.SHELVING_OFFLOADING]),
        ('remove', 'session', UUID), 'commit']
    # The quota stays counted: nothing released.
    assert (instance.vm_state, instance.host) == ('shelved_offloaded', None)


def test_a_server_that_left_the_task_frees_nothing(w):
    w.fail['save'] = exception.UnexpectedTaskStateError(
        instance_uuid=UUID, expected=[T.SHELVING_OFFLOADING],
        actual='deleting')
    with pytest.raises(exception.UnexpectedTaskStateError):
        shelve_offload.offload(w.ctxt, _shelved())
    assert [e[0] for e in w.log if isinstance(e, tuple)] == ['save']


def test_the_remotable_save_of_older_computes_is_the_task(w):
    instance = _shelved()
    instance._context = w.ctxt
    assert instance.save_offloaded(
        expected_task_state=[T.SHELVING_OFFLOADING]) == ['rp-a', 'rp-b']
    assert ('remove', 'session', UUID) in w.log


def test_the_conductor_s_1_9_call_runs_the_task(w, monkeypatch):
    calls = []
    monkeypatch.setattr(shelve_offload, 'offload',
                        lambda context, instance: calls.append(instance))
    mgr = conductor_manager.ConductorManager.__new__(
        conductor_manager.ConductorManager)
    instance = _shelved()
    assert mgr.shelve_offloaded(w.ctxt, instance) is instance
    assert calls == [instance]
