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
    with mock.patch.object(env.manager.builds, 'run',
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

    with mock.patch.object(env.manager.builds, 'run',
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

    with mock.patch.object(env.manager.builds, 'run',
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
    with mock.patch.object(env.manager.builds, 'run') as do:
        _cast(env, inst).result(timeout=10)
        # Done (and not tracked: the mock claimed nothing): a later cast
        # is built, as by a compute that restarted without it.
        _cast(env, inst).result(timeout=10)
    assert do.call_count == 2


def test_a_receipt_that_cannot_be_sent_does_not_stop_the_build(env):
    inst = fakes.instance()
    env.manager.conductor_api.build_received.side_effect = RuntimeError(
        'no bus')
    with mock.patch.object(env.manager.builds, 'run') as do:
        _cast(env, inst).result(timeout=10)
    assert do.call_count == 1


def test_receipts_open_and_close():
    receipts = build_receipts.Receipts()
    assert receipts.open('u1', 'n0')
    assert not receipts.open('u1', 'n0')
    assert receipts.open('u1', 'n1')
    receipts.close('u1', 'n0')
    assert receipts.open('u1', 'n0')


# The receipt and the first save in one cast (conductor RPC 1.10).

def _combined(env):
    env.manager._conductor_api.can_send_build_started.return_value = True
    return env.manager._conductor_api


def _started(env):
    return [(c[0][1].uuid, dict(c[0][1].obj_get_changes()), c[0][2])
            for c in env.manager._conductor_api.build_started.call_args_list]


def test_a_build_that_starts_at_once_is_acknowledged_by_its_start(env):
    api = _combined(env)
    inst = fakes.instance()
    starts = []
    # What the cast carried when it was sent (the instance changes later).
    api.build_started.side_effect = lambda ctxt, i, host: starts.append(
        (i.uuid, i.obj_get_changes(), host))
    _, hosts = test_manager._build(env, inst)
    assert _receipts(env) == []
    assert starts == [(inst.uuid, {
        'host': 'host1', 'node': 'host1-n0', 'task_state': 'spawning',
        'compute_node_uuid': hosts[0].compute_node_uuid}, 'host1')]
    # One save, a call: it carries the start's changes again and expects
    # scheduling too (the cast may not be applied yet, or ever).
    (save,) = env.saves
    assert save['expected'] == ['scheduling', 'spawning']
    changes = save['changes']
    assert (changes['host'], changes['node'], changes['compute_node_uuid'],
            changes['vm_state'], changes['task_state']) == (
        'host1', 'host1-n0', hosts[0].compute_node_uuid, 'active', None)
    assert env.manager.driver.get_info(inst) == 1


def test_pinned_below_1_10_a_build_sends_what_it_did(env):
    inst = fakes.instance()
    test_manager._build(env, inst)
    env.manager._conductor_api.build_started.assert_not_called()
    assert _receipts(env) == [(inst.uuid, 'host1')]
    assert [s['expected'] for s in env.saves] == ['scheduling', 'spawning']


def test_a_build_that_waits_for_a_slot_is_acknowledged_at_once(env, conf):
    conf.config(max_concurrent_builds=1)
    _combined(env)
    first, second = fakes.instance(), fakes.instance()
    release = threading.Event()
    real = env.manager.builds.run
    with mock.patch.object(env.manager.builds, 'run',
                           side_effect=lambda *a: (release.wait(10),
                                                   real(*a))):
        one = _cast(env, first)
        two = _cast(env, second, 'host1-n1')
        # The second waits for the first: its receipt goes now.
        assert _receipts(env) == [(second.uuid, 'host1')]
        release.set()
        one.result(timeout=10)
        two.result(timeout=10)
    assert [uuid for uuid, _c, _h in _started(env)] == [first.uuid]
    assert sorted(str(s['expected']) for s in env.saves) == [
        "['scheduling', 'spawning']", 'scheduling', 'spawning']


def test_a_duplicate_is_acknowledged_by_a_receipt(env):
    _combined(env)
    inst = fakes.instance()
    release = threading.Event()
    with mock.patch.object(env.manager.builds, 'run',
                           side_effect=lambda *a: release.wait(10)):
        first = _cast(env, inst)
        _cast(env, inst)
        release.set()
        first.result(timeout=10)
    assert _receipts(env) == [(inst.uuid, 'host1')]


def test_a_build_handed_back_after_its_start_is_acknowledged_first(env,
                                                                   conf):
    conf.config(group='fake_driver', fail_spawn_nodes=['host1-n0'])
    env.manager.driver.init_host('host1')
    api = _combined(env)
    order = []
    api.build_received.side_effect = lambda *a, **kw: order.append(
        ('receipt', kw))
    api.build_instances.side_effect = lambda *a, **kw: order.append(
        ('hand back', len(env.saves)))
    inst = fakes.instance()
    test_manager._build(env, inst, alternates=1)
    # The receipt is a call, answered before the hand-back is saved: a
    # start still on its way then finds the build acknowledged.
    assert order == [('receipt', {'wait': True, 'timeout': 5}),
                     ('hand back', 1)]
    (reset,) = env.saves
    assert reset['expected'] == ['scheduling', 'spawning']
    assert (reset['changes']['host'], reset['changes']['task_state']) == (
        None, 'scheduling')
    assert env.manager.driver.list_instance_uuids() == []


def test_a_claim_failure_hands_back_without_a_fence(env):
    _combined(env)
    inst = fakes.instance(vcpus=99)
    test_manager._build(env, inst, alternates=1)
    env.manager._conductor_api.build_started.assert_not_called()
    env.manager._conductor_api.build_received.assert_not_called()
    assert env.manager._conductor_api.build_instances.call_count == 1


def test_deleted_during_a_combined_build_cleans_up(env):
    _combined(env)
    env.save_errors[1] = test_manager.exception.InstanceNotFound(
        instance_id='x')
    inst = fakes.instance()
    test_manager._build(env, inst, alternates=1)
    assert env.manager.driver.list_instance_uuids() == []
    assert env.manager.rt.usage('host1-n0')['VCPU'] == 0
    env.manager._conductor_api.build_instances.assert_not_called()


def test_a_start_that_cannot_be_sent_does_not_stop_the_build(env):
    api = _combined(env)
    api.build_started.side_effect = RuntimeError('no bus')
    inst = fakes.instance()
    test_manager._build(env, inst)
    (save,) = env.saves
    assert save['changes']['host'] == 'host1'
    assert save['changes']['vm_state'] == 'active'
