"""The move workflow in the conductor: the steps in order, what each
failure undoes, rescheduling on the alternates, and confirm/revert.

The database steps (move_records), placement, the scheduler and the
compute RPC are fakes that record what happened, in order.
"""

import datetime
import json
import types
from unittest import mock

import pytest

from nova_lite.conductor.tasks import migrate
from nova_lite.conductor.tasks import move_records
from nova_lite.conductor.tasks import move_timeouts
from nova_lite.conductor.tasks import resize_outcome
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import instance_action
from nova_lite.placement import allocations
from nova_lite.quota import reservations

UUID = '8b6f0d1e-3c2a-4f5b-9e7d-1a2b3c4d5e6f'


def _flavor(flavorid, vcpus=1, memory_mb=512):
    return objects.Flavor(id=int(flavorid), flavorid=flavorid, name=flavorid,
                          vcpus=vcpus, memory_mb=memory_mb, root_gb=1,
                          ephemeral_gb=0, swap=0, extra_specs={})


def _instance():
    return objects.Instance(uuid=UUID, project_id='p', user_id='u',
                            flavor=_flavor('1'), vcpus=1, memory_mb=512,
                            host='src', node='src-n0', vm_state='active',
                            task_state='resize_prep')


def _selection(host):
    request = {'allocations': {host: {'resources': {'VCPU': 1}}}}
    return objects.Selection(service_host=host, nodename=host + '-n0',
                             compute_node_uuid=UUID,
                             allocation_request=json.dumps(request))


class Recorder:
    def __init__(self, log, name, answers=None):
        self.log, self.name, self.answers = log, name, answers or {}

    def __getattr__(self, method):
        if method.startswith('can_send'):
            # The pin checks take no context and are not recorded.
            return lambda: self.answers.get(method, True)

        def call(context, *args, **kwargs):
            self.log.append((self.name + '.' + method, args, kwargs))
            answer = self.answers.get(method)
            if isinstance(answer, Exception):
                raise answer
            return answer
        return call


@pytest.fixture
def w(monkeypatch, conf):
    w = types.SimpleNamespace(log=[], events=[], faults=[])
    w.ctxt = nl_context.get_admin_context()
    w.migration = objects.Migration(id=1, uuid=UUID, source_compute='src',
                                    source_node='src-n0', status='x')
    w.spec = objects.RequestSpec(instance_uuid=UUID, project_id='p',
                                 user_id='u', flavor=_flavor('1'),
                                 force_hosts=['src'], instance_group=None)
    w.scheduler = Recorder(w.log, 'scheduler', {
        'select_destinations': [[_selection('dst'), _selection('alt')]]})
    w.compute = Recorder(w.log, 'compute')

    def record(name, result=None):
        def fake(*args, **kwargs):
            w.log.append((name, args, kwargs))
            if isinstance(w.fail.get(name), Exception):
                raise w.fail[name]
            return result
        return fake
    w.fail = {}
    monkeypatch.setattr(move_records, 'start_move',
                        record('start_move', w.migration))
    monkeypatch.setattr(move_records, 'record_destination',
                        record('record_destination'))
    monkeypatch.setattr(move_records, 'abandon_move',
                        record('abandon_move', {'dst'}))
    monkeypatch.setattr(move_records, 'confirm_move',
                        record('confirm_move', {'src'}))
    monkeypatch.setattr(move_records, 'revert_move',
                        record('revert_move', {'dst'}))
    monkeypatch.setattr(reservations, 'rollback', record('rollback'))
    monkeypatch.setattr(objects.RequestSpec, 'get_by_instance_uuid',
                        classmethod(lambda cls, c, u: w.spec))
    monkeypatch.setattr(objects.InstanceFault, 'create',
                        lambda self: w.faults.append(self.message))
    monkeypatch.setattr(objects.Instance, 'save',
                        lambda self, **kw: w.log.append(('save', (), kw)))
    monkeypatch.setattr(objects.Migration, 'get_by_id',
                        classmethod(lambda cls, c, i: w.migration))
    monkeypatch.setattr(objects.Migration, 'save',
                        lambda self: w.log.append(('migration', self.status,
                                                   {})))
    monkeypatch.setattr(
        instance_action.InstanceActionEvent, 'event_finish',
        classmethod(lambda cls, c, u, event, **kw: w.events.append(
            (event, kw.get('result'), kw.get('details')))))
    monkeypatch.setattr(instance_action.InstanceActionEvent, 'event_start',
                        classmethod(lambda cls, *a, **kw: None))
    # Compute services: every one up unless a test says which are down.
    w.down = set()
    monkeypatch.setattr(
        objects.ServiceList, 'get_all',
        classmethod(lambda cls, c: [
            mock.Mock(host=host, binary='nova-lite-compute', is_up=False)
            for host in w.down]))
    return w


def _task(w, flavor='2', **kwargs):
    return migrate.MigrateTask(w.ctxt, _instance(), _flavor(flavor),
                               w.scheduler, w.compute, **kwargs)


def _names(w):
    return [entry[0] for entry in w.log]


def test_resize_schedules_without_the_source_and_casts_prep(w):
    _task(w, reservation={'uuid': 'r'}).execute()
    assert _names(w) == ['start_move', 'scheduler.select_destinations',
                         'record_destination', 'compute.prep_resize']
    assert w.log[0][1][3] == 'resize'
    spec = w.log[1][1][0]
    assert spec.ignore_hosts == ['src']
    assert spec.flavor.flavorid == '2'
    assert spec.force_hosts is None and spec.requested_destination is None
    prep = w.log[3][1]
    assert [s.service_host for s in prep[4]] == ['dst', 'alt']
    assert prep[3].retry.hosts == [['dst', 'dst-n0']]
    assert w.events == [(migrate.EVENT, None, None)]


def test_a_named_host_is_a_requested_destination_not_forced(w):
    _task(w, flavor='1', host='dst').execute()
    assert w.log[0][1][3] == 'migration'
    spec = w.log[1][1][0]
    assert spec.requested_destination == {'host': 'dst', 'node': None}
    assert spec.force_hosts is None


@pytest.mark.parametrize('flavor,ignored', [('2', []), ('1', ['src'])])
def test_same_host_only_for_a_resize_when_allowed(w, conf, flavor,
                                                  ignored):
    conf.config(allow_resize_to_same_host=True)
    _task(w, flavor=flavor).execute()
    assert w.log[1][1][0].ignore_hosts == ignored


def test_no_valid_host_undoes_the_move_and_says_why(w):
    w.scheduler.answers['select_destinations'] = exception.NoValidHost(
        reason='RamFilter: 2 -> 0')
    _task(w).execute()
    assert _names(w) == ['start_move', 'scheduler.select_destinations',
                         'abandon_move']
    assert 'RamFilter: 2 -> 0' in w.faults[0]
    [(event, result, details)] = w.events
    assert (event, result) == (migrate.EVENT, 'Error')
    assert 'No valid host was found. RamFilter: 2 -> 0' in details


def test_a_failed_start_rolls_the_quota_back_and_clears_the_task(w):
    w.fail['start_move'] = exception.UnexpectedTaskStateError(
        instance_uuid=UUID, expected='resize_prep', actual='deleting')
    _task(w, reservation={'uuid': 'r'}).execute()
    assert _names(w) == ['start_move', 'rollback', 'save']
    assert w.log[1][1][1] == 'r'


def test_reschedule_skips_a_full_alternate_and_casts_the_next(w,
                                                             monkeypatch):
    calls = []

    def replace(context, consumer, project, user, requests):
        calls.append(sorted(requests))
        if 'alt1' in requests:
            raise exception.InsufficientCapacity(
                uuid='alt1', amount=1, resource_class='VCPU', free=0,
                capacity=1)
        return {'dst'}, {'alt2': 3}
    monkeypatch.setattr(allocations, 'replace', replace)
    alternates = [_selection('alt1'), _selection('alt2')]
    spec = w.spec.obj_clone()
    spec.record_attempt('dst', 'dst-n0')
    _task(w, migration=w.migration, host_list=alternates,
          request_spec=spec).execute()
    assert calls == [['alt1'], ['alt2']]
    assert _names(w) == ['record_destination', 'compute.prep_resize']
    assert [s.service_host for s in w.log[1][1][4]] == ['alt2']
    assert w.log[1][1][3].retry.hosts == [['dst', 'dst-n0'],
                                          ['alt2', 'alt2-n0']]


def test_reschedule_with_no_alternate_left_gives_up(w):
    spec = w.spec.obj_clone()
    spec.record_attempt('dst', 'dst-n0')
    _task(w, migration=w.migration, host_list=[],
          request_spec=spec).execute()
    assert _names(w) == ['abandon_move']
    assert 'Exceeded maximum number of retries' in w.faults[0]
    assert 'dst (dst-n0)' in w.faults[0]


def test_confirm_settles_records_then_tells_the_source(w):
    resize_outcome.ConfirmTask(w.ctxt, _instance(), w.migration,
                               w.scheduler, w.compute).execute()
    assert _names(w) == ['confirm_move', 'compute.confirm_resize']


def test_a_confirm_for_a_delete_then_casts_the_delete(w):
    # Nova's order: the source is freed before the record goes.
    instance = _instance()
    instance.task_state = 'deleting'
    resize_outcome.ConfirmTask(w.ctxt, instance, w.migration,
                               w.scheduler, w.compute).execute()
    assert _names(w) == ['confirm_move', 'compute.confirm_resize',
                         'compute.terminate_instance']


def test_a_failed_confirm_for_a_delete_still_deletes(w):
    w.fail['confirm_move'] = exception.InstanceNotFound(instance_id=UUID)
    w.migration.status = 'confirming'
    instance = _instance()
    instance.task_state = 'deleting'
    resize_outcome.ConfirmTask(w.ctxt, instance, w.migration,
                               w.scheduler, w.compute).execute()
    assert _names(w) == ['confirm_move', 'migration',
                         'compute.terminate_instance']


def _revert(w):
    instance = _instance()
    instance.task_state = 'resize_reverting'
    resize_outcome.RevertTask(w.ctxt, instance, w.migration, w.scheduler,
                              w.compute).execute()
    return instance


def test_revert_has_the_destination_destroy_its_vm_first(w):
    # Nova's order: the records stay (the destination held by the
    # instance) until the destination's VM is gone.
    _revert(w)
    assert _names(w) == ['compute.revert_resize']
    assert w.log[-1][2] == {'conductor_finishes': True}
    assert w.events[-1][:2] == ('conductor_revert_resize', None)


def test_revert_to_computes_pinned_below_settles_records_first(w):
    w.compute.answers['can_send_revert_dest_first'] = False
    _revert(w)
    assert _names(w) == ['revert_move', 'compute.revert_resize']
    assert w.log[-1][2] == {}


def test_a_revert_the_bus_refused_waits_for_a_decision_again(w):
    w.compute.answers['revert_resize'] = exception.UnsupportedRPCVersion(
        method='revert_resize', service='compute', needed='1.10', pin='1.9')
    w.migration.status = 'reverting'
    _revert(w)
    # Nothing was written: back to VERIFY_RESIZE.
    assert _names(w)[-2:] == ['migration', 'save']
    assert w.migration.status == 'finished'
    assert 'revert_move' not in _names(w)


def _finish_revert(w, instance=None):
    instance = instance or _instance()
    instance.task_state = 'resize_reverting'
    instance.vm_state = 'resized'
    instance.obj_reset_changes()
    resize_outcome.FinishRevertTask(w.ctxt, instance, w.migration,
                                    w.compute).execute()
    return instance


def test_finish_revert_frees_the_destination_then_starts_the_source(w):
    _finish_revert(w)
    assert _names(w) == ['revert_move', 'compute.finish_revert_resize']
    assert w.events[-1][:2] == ('conductor_finish_revert_resize', None)
    assert w.faults == []


@pytest.mark.parametrize('failing', ['revert_move',
                                     'compute.finish_revert_resize'])
def test_a_failed_finish_revert_puts_the_server_in_error(w, failing):
    # The destination's VM is gone: there is nothing to go back to.
    error = exception.NovaLiteException('database away')
    if failing == 'revert_move':
        w.fail['revert_move'] = error
    else:
        w.compute.answers['finish_revert_resize'] = error
    w.migration.status = 'reverting'
    instance = _finish_revert(w)
    saves = [e for e in w.log if e[0] == 'save']
    assert saves == [('save', (), {
        'expected_task_state': ['resize_reverting']})]
    assert (instance.vm_state, instance.task_state) == ('error', None)
    assert w.migration.status == 'error'
    assert w.faults == ['database away']
    assert w.events[-1][:2] == ('conductor_finish_revert_resize', 'Error')


@pytest.mark.parametrize('gone', [
    exception.InstanceNotFound(instance_id=UUID),
    exception.UnexpectedTaskStateError(instance_uuid=UUID, expected='x',
                                       actual=None)])
def test_a_server_that_moved_on_is_left_to_whoever_moved_it(w, gone):
    w.fail['revert_move'] = gone
    w.migration.status = 'reverting'
    _finish_revert(w)
    assert _names(w) == ['revert_move']
    assert w.faults == [] and w.migration.status == 'reverting'


def test_a_failed_confirm_puts_the_migration_back_to_finished(w):
    w.fail['confirm_move'] = exception.InstanceInvalidState(
        instance_uuid=UUID, attr='vm_state', state='active', method='save')
    w.migration.status = 'confirming'
    resize_outcome.ConfirmTask(w.ctxt, _instance(), w.migration,
                               w.scheduler, w.compute).execute()
    assert _names(w) == ['confirm_move', 'migration']
    assert w.migration.status == 'finished'
    assert w.events[-1][1] == 'Error'


def test_a_failed_confirm_leaves_a_settled_migration_alone(w):
    w.fail['confirm_move'] = exception.InstanceInvalidState(
        instance_uuid=UUID, attr='vm_state', state='active', method='save')
    w.migration.status = 'confirmed'
    resize_outcome.ConfirmTask(w.ctxt, _instance(), w.migration,
                               w.scheduler, w.compute).execute()
    assert _names(w) == ['confirm_move']
    assert w.migration.status == 'confirmed'


def _n(number):
    return '00000000-0000-4000-8000-%012d' % number


def test_confirm_expired_confirms_only_old_moves_in_verify_resize(
        w, monkeypatch):
    now = datetime.datetime.utcnow()
    old, fresh, moving = (
        objects.Migration(id=n, uuid=UUID, instance_uuid=_n(n),
                          status='finished', created_at=now,
                          updated_at=now - datetime.timedelta(seconds=age))
        for n, age in ((1, 120), (2, 5), (3, 120)))
    monkeypatch.setattr(objects.MigrationList, 'get_by_filters',
                        classmethod(lambda cls, c, f: [old, fresh, moving]))

    def get_instance(cls, context, uuid):
        instance = _instance()
        instance.uuid = UUID
        instance.vm_state = 'resized'
        instance.task_state = 'resize_reverting' if uuid == _n(3) else None
        return instance
    monkeypatch.setattr(objects.Instance, 'get_by_uuid',
                        classmethod(get_instance))
    assert resize_outcome.confirm_expired(w.ctxt, 60, w.scheduler,
                                          w.compute) == [UUID]
    assert _names(w) == ['migration', 'confirm_move',
                         'compute.confirm_resize']
    assert old.status == 'confirming' and fresh.status == 'finished'
    assert resize_outcome.confirm_expired(w.ctxt, 0, w.scheduler,
                                          w.compute) == []


@pytest.mark.parametrize('task_state,status,outcome', [
    ('resize_prep', 'pre-migrating', 'undone'),
    ('resize_prep', None, 'cleared'),
    ('resize_migrating', 'migrating', 'error-at-source'),
    ('resize_finish', 'post-migrating', 'error-at-source'),
    ('resize_reverting', 'reverting', 'error'),
    # A revert whose records went back to the source, whose source then
    # never started the VM: the source stays the instance's.
    ('resize_reverting', 'reverting', 'error-kept-at-source')])
def test_a_move_stuck_past_the_timeout_is_settled(w, monkeypatch, task_state,
                                                  status, outcome):
    instance = _instance()
    instance.task_state = task_state
    if outcome == 'error':
        instance.host = 'dst'   # past VERIFY_RESIZE: the record moved
    instance.obj_reset_changes()
    asked = {}

    def stuck(cls, context, filters, **kwargs):
        asked.update(filters)
        return [instance]
    monkeypatch.setattr(objects.InstanceList, 'get_by_filters',
                        classmethod(stuck))
    w.migration.status = status
    monkeypatch.setattr(
        objects.MigrationList, 'get_by_filters',
        classmethod(lambda cls, c, f, limit=None: [w.migration]
                    if status else []))
    assert move_timeouts.fail_stuck_moves(w.ctxt, 600) == [
        UUID]
    assert 'resize_migrating' in asked['task_state']
    assert 'for more than 600 seconds' in w.faults[0]
    if outcome == 'undone':
        assert _names(w) == ['abandon_move']
        assert instance.vm_state == 'active'
    elif outcome == 'error-at-source':
        # Nova's revert of the allocations: the source is the instance's
        # again, the destination freed, and the server in ERROR there.
        assert _names(w) == ['abandon_move']
        assert instance.vm_state == 'error'
    elif outcome == 'cleared':
        assert _names(w) == ['save']
        assert instance.task_state is None
    else:
        assert _names(w) == ['save', 'migration']
        assert (instance.vm_state, w.migration.status) == ('error', 'error')


@pytest.mark.parametrize('task_state,status,down,outcome', [
    ('resize_prep', 'pre-migrating', 'dst', 'undone'),
    ('resize_migrating', 'migrating', 'src', 'error-at-source'),
    ('resize_finish', 'post-migrating', 'dst', 'error-at-source'),
    ('resize_migrating', 'migrating', 'elsewhere', 'left')])
def test_a_move_with_a_compute_down_is_settled_at_once(
        w, monkeypatch, task_state, status, down, outcome):
    """No timeout passed (the first query finds nothing), but the move
    needs a compute that is down: it is settled now, with a fault naming
    that compute."""
    instance = _instance()
    instance.task_state = task_state
    instance.obj_reset_changes()
    w.migration.status, w.migration.dest_compute = status, 'dst'
    w.down = {down}
    monkeypatch.setattr(
        objects.InstanceList, 'get_by_filters',
        classmethod(lambda cls, c, filters, **kw: []
                    if 'updated_before' in filters else [instance]))
    monkeypatch.setattr(
        objects.MigrationList, 'get_by_filters',
        classmethod(lambda cls, c, f, limit=None: [w.migration]))
    settled = move_timeouts.fail_stuck_moves(w.ctxt, 600)
    if outcome == 'left':
        assert settled == [] and w.log == [] and w.faults == []
        return
    assert settled == [UUID]
    assert 'its compute %s is down' % down in w.faults[0]
    assert _names(w) == ['abandon_move']
    assert instance.vm_state == ('active' if outcome == 'undone'
                                 else 'error')


def _events(monkeypatch, *events):
    """The newest action of the instance has ``events``: (name, host,
    finished)."""
    action = instance_action.InstanceAction(id=7)
    monkeypatch.setattr(
        objects.InstanceActionList, 'get_by_instance_uuid',
        classmethod(lambda cls, c, uuid, limit=None: [action]))
    found = [instance_action.InstanceActionEvent(
        event=name, host=host, finish_time=(
            datetime.datetime(2026, 1, 1) if finished else None))
        for name, host, finished in events]
    monkeypatch.setattr(
        objects.InstanceActionEventList, 'get_by_action',
        classmethod(lambda cls, c, action_id: found))


def _settle_restarted(w, monkeypatch, instance, restarted, events=()):
    """settle_restarted(``restarted``) with ``instance`` the one server
    moving, ``w.migration`` its migration and ``events`` on its newest
    action; whether it settled the move (with the fault saying why)."""
    monkeypatch.setattr(
        objects.InstanceList, 'get_by_filters',
        classmethod(lambda cls, c, filters, **kw: [instance]))
    monkeypatch.setattr(
        objects.MigrationList, 'get_by_filters',
        classmethod(lambda cls, c, f, limit=None: [w.migration]))
    _events(monkeypatch, *events)
    settled = move_timeouts.settle_restarted(w.ctxt, restarted)
    if not settled:
        assert w.log == [] and w.faults == []
        return False
    assert settled == [UUID]
    assert 'its compute %s restarted' % restarted in w.faults[0]
    return True


@pytest.mark.parametrize('task_state,status,restarted,outcome', [
    ('resize_prep', 'pre-migrating', 'dst', 'left'),
    ('resize_migrating', 'migrating', 'src', 'error-at-source'),
    ('resize_migrating', 'migrating', 'dst', 'left'),
    ('resize_migrated', 'post-migrating', 'dst', 'left'),
    ('resize_finish', 'post-migrating', 'dst', 'error-at-source'),
    ('resize_finish', 'post-migrating', 'src', 'left'),
    ('resize_reverting', 'reverting', 'src', 'left')])
def test_a_restarted_compute_has_the_moves_of_its_steps_settled(
        w, monkeypatch, task_state, status, restarted, outcome):
    """A compute that restarted (conductor RPC 1.8, settle_moves) lost
    the step it was working on: that move is settled now; a move whose
    step is on the other compute goes on."""
    instance = _instance()
    instance.task_state = task_state
    instance.obj_reset_changes()
    w.migration.status, w.migration.dest_compute = status, 'dst'
    if task_state == 'resize_reverting':
        instance.host = 'dst'  # VERIFY_RESIZE: the record names it
    settled = _settle_restarted(w, monkeypatch, instance, restarted)
    assert settled == (outcome != 'left')
    if not settled:
        return
    if outcome == 'error':
        assert (instance.vm_state, w.migration.status) == ('error', 'error')
        return
    assert _names(w) == ['abandon_move']
    assert instance.vm_state == ('active' if outcome == 'undone'
                                 else 'error')


def test_the_server_group_is_read_again_so_its_policy_holds(w,
                                                            monkeypatch):
    loaded = []
    group = objects.InstanceGroup(uuid=UUID, policy='anti-affinity',
                                  members=[], hosts=[])
    monkeypatch.setattr(objects.InstanceGroup, 'load_for_scheduling',
                        lambda self: loaded.append(self.uuid))
    w.spec.instance_group = group
    _task(w).execute()
    assert loaded == [UUID]
    assert w.log[1][1][0].instance_group.uuid == UUID


@pytest.mark.parametrize('events,restarted,outcome', [
    # The destination was killed in its prep: undone.
    ([('compute_prep_resize', 'dst', False)], 'dst', 'undone'),
    # ... a prep it finished is not lost with it (lost_actions resends
    # the resize to the source).
    ([('compute_prep_resize', 'dst', True)], 'dst', 'left'),
    # The source was killed as it started the resize, before its save.
    ([('compute_prep_resize', 'dst', True),
      ('compute_resize_instance', 'src', False)], 'src', 'undone'),
    # A step on the other compute goes on.
    ([('compute_prep_resize', 'dst', False)], 'src', 'left'),
    # A prep the destination was never asked for waits in its queue.
    ([], 'dst', 'left')])
def test_a_restarted_compute_has_the_prep_it_started_settled(
        w, monkeypatch, events, restarted, outcome):
    """A move in resize_prep has no step of its own in the task state: a
    compute that restarted lost the step whose event it started and
    never finished."""
    instance = _instance()
    instance.task_state = 'resize_prep'
    instance.obj_reset_changes()
    w.migration.status, w.migration.dest_compute = 'pre-migrating', 'dst'
    settled = _settle_restarted(w, monkeypatch, instance, restarted,
                                events)
    assert settled == (outcome != 'left')
    if not settled:
        return
    assert _names(w) == ['abandon_move']
    assert instance.vm_state == 'active'
