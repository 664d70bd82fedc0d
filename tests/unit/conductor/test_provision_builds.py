"""provision_instances(build=True) (conductor RPC 1.5): the conductor
starts the build itself, after the call answered, marked as worked on
until it ends."""

import threading
from unittest import mock

import pytest

from nova_lite.conductor import manager as conductor_manager
from nova_lite.conductor.tasks import build
from nova_lite.conductor.tasks import ownership
from nova_lite.conductor.tasks import provision
from nova_lite import context as nl_context
from nova_lite import objects

UUIDS = ['9a2b5f36-7a46-4a55-9a51-5d0b8a3c0001',
         '9a2b5f36-7a46-4a55-9a51-5d0b8a3c0002']


@pytest.fixture
def manager(monkeypatch, conf):
    made = objects.InstanceList(objects=[
        objects.Instance(uuid=uuid) for uuid in UUIDS])
    monkeypatch.setattr(provision, 'provision',
                        mock.Mock(return_value=(made, True)))
    tasks = []
    release = threading.Event()

    class FakeTask:
        def __init__(self, context, instances, spec, host_lists,
                     scheduler_api, compute_api, provisioned=None):
            tasks.append((list(instances), spec, host_lists, provisioned,
                          [ownership.is_active(u) for u in UUIDS]))

        def execute(self):
            release.wait(10)

    monkeypatch.setattr(build, 'BuildTask', FakeTask)
    with mock.patch.object(conductor_manager.scheduler_rpcapi,
                           'SchedulerAPI'), \
            mock.patch.object(conductor_manager.compute_rpcapi,
                              'ComputeAPI'):
        mgr = conductor_manager.ConductorManager(host='c1')
    mgr.tasks, mgr.release, mgr.made = tasks, release, made
    yield mgr
    release.set()
    mgr.cleanup_host()


def _provision(mgr, build_it):
    return mgr.provision_instances(nl_context.get_admin_context(), 'tmpl',
                                   'spec', 1, 2, build=build_it)


def test_without_build_nothing_is_built(manager):
    assert _provision(manager, False) is manager.made
    manager.cleanup_host()
    assert manager.tasks == []
    assert not any(ownership.is_active(u) for u in UUIDS)


def test_with_build_the_build_runs_after_the_answer(manager):
    assert _provision(manager, True) is manager.made
    # Marked from the answer on: the lost-build check leaves them alone
    # while they wait in the pool and while they are built.
    assert all(ownership.is_active(u) for u in UUIDS)
    manager.release.set()
    manager.cleanup_host()
    [(instances, spec, host_lists, provisioned, active)] = manager.tasks
    assert [i.uuid for i in instances] == UUIDS
    assert (spec, host_lists, provisioned) == ('spec', None, True)
    assert active == [True, True]
    assert not any(ownership.is_active(u) for u in UUIDS)


def test_a_failing_build_is_logged_and_unmarked(manager, monkeypatch):
    monkeypatch.setattr(build, 'BuildTask', mock.Mock(
        side_effect=RuntimeError('boom')))
    with mock.patch.object(conductor_manager.LOG, 'exception') as log:
        _provision(manager, True)
        manager.cleanup_host()
    assert log.call_count == 1
    assert not any(ownership.is_active(u) for u in UUIDS)


def test_an_earlier_attempts_servers_are_not_built_again(manager):
    """A create sent again (RPC 1.7) that finds the first attempt's
    servers answers with them and starts no second build."""
    provision.provision.return_value = (manager.made, provision.EARLIER)
    made = manager.provision_instances(
        nl_context.get_admin_context(), 'tmpl', 'spec', 1, 2, build=True,
        request_key='req-1')
    assert made is manager.made
    assert provision.provision.call_args[0][-1] == 'req-1'
    manager.cleanup_host()
    assert manager.tasks == []


def test_a_create_waits_while_the_builds_ahead_fill_the_conductor(
        manager, conf):
    """[conductor] max_pending_builds: the second create of two servers
    answers only once the first's build left; its records are marked as
    worked on while it waits."""
    conf.config(max_pending_builds=2, build_admission_timeout=10,
                group='conductor')
    _provision(manager, True)
    answered = threading.Event()
    thread = threading.Thread(
        target=lambda: (_provision(manager, True), answered.set()),
        daemon=True)
    thread.start()
    assert not answered.wait(0.3)
    assert len(manager.tasks) == 1
    assert all(ownership.is_active(u) for u in UUIDS)
    manager.release.set()
    assert answered.wait(5)
    thread.join(5)
    manager.cleanup_host()
    assert len(manager.tasks) == 2
    assert manager._admission.pending == 0


def test_a_create_is_answered_after_the_admission_timeout(manager, conf):
    conf.config(max_pending_builds=2, build_admission_timeout=0.2,
                group='conductor')
    _provision(manager, True)
    with mock.patch.object(conductor_manager.LOG, 'debug') as log:
        assert _provision(manager, True) is manager.made
    assert log.call_count == 1
    assert manager._admission.pending == 4
    manager.release.set()
    manager.cleanup_host()
    assert manager._admission.pending == 0


def test_a_failed_build_leaves_room(manager, monkeypatch):
    monkeypatch.setattr(build, 'BuildTask', mock.Mock(
        side_effect=RuntimeError('boom')))
    _provision(manager, True)
    manager.cleanup_host()
    assert manager._admission.pending == 0
