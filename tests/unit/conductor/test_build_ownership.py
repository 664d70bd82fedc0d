"""The build task takes, hands off and respects build owners
(conductor/tasks/ownership.py)."""

from unittest import mock

import pytest

from nova_lite.conductor.tasks import build
from nova_lite.conductor.tasks import ownership
from nova_lite import context as nl_context
from tests.unit.conductor import test_build_retry as retry
from tests.unit.conductor import test_build_scheduling_data as data


@pytest.fixture
def owners(monkeypatch, placement):
    fake = mock.Mock()
    fake.enabled.return_value = True
    fake.take_fresh.return_value = True
    fake.take_handed_back.return_value = True
    fake.hand_off.return_value = True
    fake.working = ownership.working
    monkeypatch.setattr(build, 'ownership', fake)
    return fake


placement = retry.placement


def _task(instances, host_lists=None, **kwargs):
    scheduler, compute = mock.Mock(), mock.Mock()
    scheduler.select_destinations.return_value = [
        [retry._selection({'VCPU': 1})] for _ in instances]
    task = build.BuildTask(nl_context.get_admin_context(), instances,
                           data._spec(), host_lists, scheduler, compute,
                           **kwargs)
    return task, scheduler, compute


def test_a_fresh_build_is_taken_then_handed_off_before_its_cast(owners):
    inst = data._instance()
    task, _, compute = _task([inst])
    task.execute()
    owners.take_fresh.assert_called_once_with(task.context, inst.uuid)
    owners.hand_off.assert_called_once_with(task.context, inst.uuid,
                                            'h1')
    assert compute.build_and_run_instance.call_count == 1


def test_a_late_duplicate_cast_is_dropped(owners):
    dropped, kept = data._instance(), data._instance()
    owners.take_fresh.side_effect = lambda ctxt, uuid: uuid != dropped.uuid
    task, scheduler, compute = _task([dropped, kept])
    scheduler.select_destinations.return_value = [
        [retry._selection({'VCPU': 1})]]
    task.execute()
    (call,) = scheduler.select_destinations.call_args_list
    assert call[0][2] == [kept.uuid]
    assert compute.build_and_run_instance.call_count == 1


def test_an_untracked_build_is_built_without_hand_off(owners):
    owners.take_fresh.return_value = 'untracked'
    task, _, compute = _task([data._instance()])
    task.execute()
    owners.hand_off.assert_not_called()
    assert compute.build_and_run_instance.call_count == 1


def test_no_cast_when_another_conductor_took_it_meanwhile(owners):
    owners.hand_off.return_value = False
    task, _, compute = _task([data._instance()])
    task.execute()
    compute.build_and_run_instance.assert_not_called()


def test_nothing_tracked_beside_an_older_conductor(owners):
    owners.enabled.return_value = False
    task, _, compute = _task([data._instance()])
    task.execute()
    owners.take_fresh.assert_not_called()
    owners.hand_off.assert_not_called()
    assert compute.build_and_run_instance.call_count == 1


def test_a_redrive_keeps_only_what_it_selected(owners, placement):
    inst = data._instance()
    placement.held[inst.uuid] = {'rp-stale': {'VCPU': 1}}
    task, _, compute = _task([inst], redrive=True)
    task.execute()
    owners.take_fresh.assert_not_called()
    assert placement.held[inst.uuid] == {retry.RP: {'VCPU': 1}}
    owners.hand_off.assert_called_once_with(task.context, inst.uuid,
                                            'h1')


def test_the_build_is_marked_worked_on_while_it_runs(owners):
    inst = data._instance()
    seen = []
    task, scheduler, _ = _task([inst])
    real = scheduler.select_destinations.return_value

    def select(*args, **kwargs):
        seen.append(ownership.is_active(inst.uuid))
        return real
    scheduler.select_destinations.side_effect = select
    task.execute()
    assert seen == [True]
    assert not ownership.is_active(inst.uuid)


@pytest.mark.parametrize('owned', [True, False])
def test_a_build_its_provisioner_started_takes_nothing(owners, owned):
    """provision_instances(build=True) (conductor RPC 1.5): the records
    already name this process, so no compare-and-swap takes them; hand
    off only what it owns."""
    inst = data._instance()
    task, _, compute = _task([inst], provisioned=owned)
    task.execute()
    owners.take_fresh.assert_not_called()
    if owned:
        owners.hand_off.assert_called_once_with(task.context, inst.uuid,
                                                'h1')
    else:
        owners.hand_off.assert_not_called()
    assert compute.build_and_run_instance.call_count == 1
