"""A compute acknowledges every build cast and builds each once
(compute/build_receipts.py)."""

import threading
from unittest import mock

from nova_lite.compute import build_receipts
from tests.unit.compute import fakes
from tests.unit.compute import test_manager

env = test_manager.env


def _cast(env, inst, node='host1-n0'):
    return env.manager.build_and_run_instance(
        env.ctxt, inst, node, None, [fakes.selection('host1', node)])


def _receipts(env):
    return [c[0][1:] for c in
            env.manager.conductor_api.build_received.call_args_list]


def test_a_build_is_acknowledged_as_it_arrives(env):
    inst = fakes.instance()
    release = threading.Event()
    with mock.patch.object(env.manager, '_do_build_and_run_instance',
                           side_effect=lambda *a: release.wait(10)):
        future = _cast(env, inst)
        # Acknowledged before the build ran.
        assert _receipts(env) == [(inst.uuid, 'host1')]
        release.set()
        future.result(timeout=10)


def test_a_duplicate_of_a_queued_build_is_dropped_and_acknowledged(env):
    inst = fakes.instance()
    release = threading.Event()
    builds = []

    def build(*args):
        builds.append(args)
        release.wait(10)

    with mock.patch.object(env.manager, '_do_build_and_run_instance',
                           side_effect=build):
        first = _cast(env, inst)
        second = _cast(env, inst)
        assert second.done()
        release.set()
        first.result(timeout=10)
    assert len(builds) == 1
    assert _receipts(env) == [(inst.uuid, 'host1')] * 2


def test_a_duplicate_of_a_finished_build_is_dropped(env):
    inst = fakes.instance()
    _cast(env, inst).result(timeout=10)
    spawned = list(env.manager.driver.list_instance_uuids())
    assert env.manager.rt.tracks(inst.uuid, 'host1-n0')
    saves = len(env.saves)
    _cast(env, inst).result(timeout=10)
    assert len(env.saves) == saves
    assert list(env.manager.driver.list_instance_uuids()) == spawned
    assert env.manager.rt.tracks(inst.uuid, 'host1-n0')


def test_the_same_instance_on_another_node_is_another_build(env):
    inst = fakes.instance()
    release = threading.Event()
    builds = []

    def build(context, instance, node, *args):
        builds.append(node)
        release.wait(10)

    with mock.patch.object(env.manager, '_do_build_and_run_instance',
                           side_effect=build):
        first = _cast(env, inst, 'host1-n0')
        # A reschedule to another node of this host, sent while the
        # failed build's thread is still finishing.
        second = _cast(env, inst, 'host1-n1')
        release.set()
        first.result(timeout=10)
        second.result(timeout=10)
    assert sorted(builds) == ['host1-n0', 'host1-n1']


def test_a_build_lost_by_a_restart_is_built_again(env):
    inst = fakes.instance()
    with mock.patch.object(env.manager, '_do_build_and_run_instance') as do:
        _cast(env, inst).result(timeout=10)
        # Done (and not tracked: the mock claimed nothing): a later cast
        # is built, as by a compute that restarted without it.
        _cast(env, inst).result(timeout=10)
    assert do.call_count == 2


def test_a_receipt_that_cannot_be_sent_does_not_stop_the_build(env):
    inst = fakes.instance()
    env.manager.conductor_api.build_received.side_effect = RuntimeError(
        'no bus')
    with mock.patch.object(env.manager, '_do_build_and_run_instance') as do:
        _cast(env, inst).result(timeout=10)
    assert do.call_count == 1


def test_receipts_open_and_close():
    receipts = build_receipts.Receipts()
    assert receipts.open('u1', 'n0')
    assert not receipts.open('u1', 'n0')
    assert receipts.open('u1', 'n1')
    receipts.close('u1', 'n0')
    assert receipts.open('u1', 'n0')
