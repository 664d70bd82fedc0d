"""The live migration workflow in the conductor: scheduling without the
source, a refusing destination losing its claim and the scheduler asked
again, a named host never retried, migrate_max_retries, the outcome the
source reports, and a stuck live migration settled by the timeout.

The database steps (move_records), placement, the scheduler and the
compute RPC are fakes that record what happened, in order (the fixture
of test_migrate).
"""

import datetime

import pytest

from nova_lite.conductor.tasks import live_migrate
from nova_lite.conductor.tasks import move_records
from nova_lite.conductor.tasks import move_timeouts
from nova_lite import exception
from nova_lite import objects
from nova_lite.placement import allocations
from tests.unit.conductor import test_migrate
from tests.unit.conductor.test_migrate import w as moves_w  # noqa: F401

UUID = test_migrate.UUID
REFUSED = exception.MigrationPreCheckError(reason='no room for it')


@pytest.fixture
def w(moves_w, monkeypatch):  # noqa: F811
    w = moves_w
    w.migration.dest_compute, w.migration.dest_node = 'dst', 'dst-n0'

    def record(name, result=None):
        def fake(*args, **kwargs):
            w.log.append((name, args, kwargs))
            if isinstance(w.fail.get(name), Exception):
                raise w.fail[name]
            return result
        return fake
    monkeypatch.setattr(move_records, 'start_live_move',
                        record('start_live_move', w.migration))
    monkeypatch.setattr(move_records, 'complete_live_move',
                        record('complete_live_move', {'src'}))
    monkeypatch.setattr(allocations, 'remove', record('remove', {'dst'}))
    w.checks = []

    def check(context, instance, migration, block_migration):
        w.log.append(('compute.check_can_live_migrate_destination', (),
                      {}))
        answer = w.checks.pop(0) if w.checks else {'dest_node': 'x'}
        if isinstance(answer, Exception):
            raise answer
        return answer
    w.compute.check_can_live_migrate_destination = check
    w.scheduler.answers['select_destinations'] = [[test_migrate._selection(
        'dst')]]
    return w


def _instance():
    instance = test_migrate._instance()
    instance.task_state = 'migrating'
    return instance


def _task(w, **kwargs):
    return live_migrate.LiveMigrateTask(w.ctxt, _instance(), w.scheduler,
                                        w.compute, **kwargs)


def _names(w):
    return [entry[0] for entry in w.log]


def test_schedules_without_the_source_checks_and_casts(w):
    _task(w, block_migration=None).execute()
    assert _names(w) == [
        'start_live_move', 'scheduler.select_destinations',
        'record_destination', 'compute.check_can_live_migrate_destination',
        'compute.live_migration']
    spec = w.log[1][1][0]
    assert spec.ignore_hosts == ['src']
    assert spec.requested_destination is None
    assert spec.force_hosts is None and spec.flavor.flavorid == '1'
    assert w.log[1][2]['return_alternates'] is False
    assert w.events == [('conductor_live_migrate_instance', None, None)]


def test_a_named_host_is_a_requested_destination_not_forced(w):
    _task(w, host='dst').execute()
    spec = w.log[1][1][0]
    assert spec.requested_destination == {'host': 'dst', 'node': None}
    assert spec.force_hosts is None
    assert w.log[0][1][2] == 'dst'


def test_a_refusing_destination_loses_its_claim_and_is_skipped(w):
    w.checks = [REFUSED]
    _task(w).execute()
    assert _names(w) == [
        'start_live_move', 'scheduler.select_destinations',
        'record_destination', 'compute.check_can_live_migrate_destination',
        'remove', 'scheduler.select_destinations', 'record_destination',
        'compute.check_can_live_migrate_destination',
        'compute.live_migration']
    second = w.log[5][1][0]
    assert second.ignore_hosts == ['src', 'dst']


def test_a_named_host_that_refuses_is_not_retried(w):
    w.checks = [REFUSED]
    task = _task(w, host='dst')
    task.execute()
    # For a caller that waits (the API below 2.34).
    assert task.error is REFUSED
    assert _names(w)[-2:] == ['remove', 'abandon_move']
    assert w.log[-1][2] == {'task_state': 'migrating'}
    assert 'no room for it' in w.faults[0]
    assert w.events[-1][:2] == ('conductor_live_migrate_instance', 'Error')


def test_migrate_max_retries_bounds_the_retries(w, conf):
    conf.config(migrate_max_retries=1)
    w.checks = [REFUSED, REFUSED, REFUSED]
    _task(w).execute()
    assert _names(w).count('compute.check_can_live_migrate_destination') == 2
    assert 'Exceeded max scheduling retries 1' in w.faults[0]
    assert 'dst: Migration pre-check error: no room for it' in w.faults[0]
    assert _names(w)[-1] == 'abandon_move'
    assert 'compute.live_migration' not in _names(w)


def test_no_valid_host_after_refusals_names_them(w):
    w.checks = [REFUSED]
    calls = []

    def select(context, spec, uuids, return_alternates):
        calls.append(spec)
        if len(calls) > 1:
            raise exception.NoValidHost(reason='RamFilter: 2 -> 0.')
        return [[test_migrate._selection('dst')]]
    w.scheduler.select_destinations = select
    _task(w).execute()
    assert 'No valid host was found. RamFilter: 2 -> 0.' in w.faults[0]
    assert 'dst: Migration pre-check error' in w.faults[0]
    assert _names(w)[-1] == 'abandon_move'


def test_a_failed_start_only_clears_the_task(w):
    w.fail['start_live_move'] = exception.InstanceNotFound(instance_id=UUID)
    _task(w).execute()
    assert _names(w) == ['start_live_move', 'save']
    assert w.log[1][2] == {'expected_task_state': ['migrating']}


def test_settle_success_completes_and_tells_schedulers(w):
    assert live_migrate.settle(w.ctxt, _instance(), w.migration, None)
    assert _names(w) == ['complete_live_move']


@pytest.mark.parametrize('status', ['error', 'cancelled'])
def test_settle_failure_puts_the_records_back(w, status):
    assert live_migrate.settle(w.ctxt, _instance(), w.migration,
                               {'status': status, 'reason': 'boom'})
    assert _names(w) == ['abandon_move']
    assert w.log[0][2] == {'task_state': 'migrating', 'status': status}


def test_settle_of_a_deleted_instance_writes_nothing_more(w):
    w.fail['complete_live_move'] = exception.InstanceNotFound(
        instance_id=UUID)
    assert not live_migrate.settle(w.ctxt, _instance(), w.migration, None)
    assert _names(w) == ['complete_live_move']


@pytest.mark.parametrize('status,outcome', [
    ('accepted', 'undone'), ('running', 'undone'), (None, 'cleared'),
    ('post-migrating', 'error'), ('running-recently', 'left')])
def test_a_stuck_live_migration_is_settled(w, monkeypatch, status,
                                           outcome):
    instance = _instance()
    instance.obj_reset_changes()
    monkeypatch.setattr(objects.InstanceList, 'get_by_filters',
                        classmethod(lambda cls, c, f, **kw: [instance]))
    old = datetime.datetime(2020, 1, 1)
    w.migration.updated_at = old
    if status == 'running-recently':
        status = 'running'
        w.migration.updated_at = datetime.datetime.utcnow()
    w.migration.status = status
    monkeypatch.setattr(
        objects.MigrationList, 'get_by_filters',
        classmethod(lambda cls, c, f, limit=None: [w.migration]
                    if status else []))
    settled = move_timeouts.fail_stuck_moves(w.ctxt, 600)
    if outcome == 'left':
        assert settled == [] and w.log == []
        return
    assert settled == [UUID]
    assert 'for more than 600 seconds' in w.faults[0]
    if outcome == 'undone':
        assert _names(w) == ['abandon_move']
        assert w.log[0][2] == {'task_state': 'migrating'}
    elif outcome == 'cleared':
        assert _names(w) == ['save']
        assert instance.task_state is None
    else:
        assert _names(w) == ['save', 'migration']
        assert (instance.vm_state, w.migration.status) == ('error', 'error')
