"""The rebuild and evacuate workflows in the conductor: what the
scheduler is asked, what each failure leaves (Nova's outcomes), the
reschedule on alternates, and the source's clean-up.

The database steps (evacuate_records), placement, the image registry,
the scheduler and the compute RPC are fakes that record what happened.
"""

import json
import types
from unittest import mock

import pytest

from nova_lite.conductor.tasks import evacuate
from nova_lite.conductor.tasks import evacuate_records
from nova_lite.conductor.tasks import rebuild
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import instance_action
from nova_lite.placement import allocations

UUID = '8b6f0d1e-3c2a-4f5b-9e7d-1a2b3c4d5e6f'
OLD = '1a2b3c4d-0000-4000-8000-000000000001'
NEW = '1a2b3c4d-0000-4000-8000-000000000002'


def _flavor():
    return objects.Flavor(id=1, flavorid='1', name='1', vcpus=1,
                          memory_mb=512, root_gb=1, ephemeral_gb=0, swap=0,
                          extra_specs={})


def _instance(vm_state='active'):
    instance = objects.Instance(uuid=UUID, project_id='p', user_id='u',
                                flavor=_flavor(), host='src', node='src-n0',
                                vm_state=vm_state, task_state='rebuilding',
                                image_ref=NEW)
    instance.obj_reset_changes(recursive=True)
    return instance


def _selection(host):
    request = {'allocations': {host: {'resources': {'VCPU': 1}}}}
    return objects.Selection(service_host=host, nodename=host + '-n0',
                             compute_node_uuid=UUID,
                             allocation_request=json.dumps(request))


class Recorder:
    def __init__(self, log, name, answers=None):
        self.log, self.name, self.answers = log, name, answers or {}

    def __getattr__(self, method):
        def call(context, *args, **kwargs):
            self.log.append((self.name + '.' + method, args, kwargs))
            answer = self.answers.get(method)
            if isinstance(answer, Exception):
                raise answer
            return answer
        return call


@pytest.fixture
def w(monkeypatch, conf):
    w = types.SimpleNamespace(log=[], events=[], faults=[], saves=[],
                              spec_saves=[])
    w.ctxt = nl_context.get_admin_context()
    w.instance = _instance()
    w.spec = objects.RequestSpec(
        instance_uuid=UUID, project_id='p', user_id='u', flavor=_flavor(),
        scheduler_hints={'group': ['g']}, instance_group=None,
        force_hosts=None, ignore_hosts=None,
        image=objects.ImageMeta.from_image({'id': OLD, 'properties': {}}))
    w.scheduler = Recorder(w.log, 'scheduler', {
        'select_destinations': [[_selection('dst'), _selection('alt')]]})
    w.compute = Recorder(w.log, 'compute')
    w.migration = objects.Migration(id=1, uuid=UUID, source_compute='src',
                                    source_node='src-n0', status='accepted',
                                    migration_type='evacuation',
                                    instance_uuid=UUID)

    def save(self, expected_task_state=None, expected_vm_state=None):
        w.saves.append((self.obj_get_changes(), expected_task_state))
        self.obj_reset_changes()
    monkeypatch.setattr(objects.Instance, 'save', save)
    monkeypatch.setattr(objects.RequestSpec, 'get_by_instance_uuid',
                        classmethod(lambda cls, c, u: w.spec))
    monkeypatch.setattr(objects.RequestSpec, 'save',
                        lambda self: w.spec_saves.append(self.image.id))
    monkeypatch.setattr(objects.Migration, 'save',
                        lambda self: w.log.append(
                            ('migration.save', self.status)))
    monkeypatch.setattr(objects.InstanceFault, 'create',
                        lambda self: w.faults.append(self.message))
    monkeypatch.setattr(
        instance_action.InstanceActionEvent, 'event_start',
        classmethod(lambda cls, c, u, e, host=None: w.events.append(
            ('start', e))))
    monkeypatch.setattr(
        instance_action.InstanceActionEvent, 'event_finish',
        classmethod(lambda cls, c, u, e, **kw: w.events.append(
            ('finish', e, kw.get('result', 'Success')))))
    monkeypatch.setattr(rebuild.image_api, 'get',
                        lambda c, image_id: {'id': image_id, 'properties': {
                            'hw_architecture': 'x86_64'}})
    return w


def _rebuild(w, image_ref=NEW, orig=OLD):
    return rebuild.RebuildTask(w.ctxt, w.instance, image_ref, orig,
                               w.scheduler, w.compute, new_pass='pw')


# -- rebuild ---------------------------------------------------------------

def test_a_new_image_is_checked_with_the_rebuild_filters_on_its_host(w):
    _rebuild(w).execute()
    [(name, (spec, uuids), kwargs), cast] = w.log
    assert name == 'scheduler.select_destinations'
    assert spec.scheduler_hints['_nova_check_type'] == ['rebuild']
    assert spec.scheduler_hints['group'] == ['g']
    assert (spec.force_hosts, spec.force_nodes) == (['src'], ['src-n0'])
    assert spec.image.id == NEW and uuids == [UUID]
    assert kwargs == {'return_alternates': False}
    # The saved spec is not the one sent: only its image changes.
    assert '_nova_check_type' not in w.spec.scheduler_hints
    assert w.spec_saves == [NEW]
    assert cast[0] == 'compute.rebuild_instance'
    assert cast[1][1:] == ('src', NEW, OLD)
    assert cast[2]['node'] == 'src-n0' and cast[2]['new_pass'] == 'pw'
    assert ('finish', rebuild.EVENT, 'Success') in w.events


def test_the_same_image_asks_no_scheduler(w):
    _rebuild(w, image_ref=OLD, orig=OLD).execute()
    assert [entry[0] for entry in w.log] == ['compute.rebuild_instance']
    assert w.spec_saves == []


def test_an_image_the_filters_refuse_ends_in_error_as_nova(w):
    w.scheduler.answers['select_destinations'] = exception.NoValidHost(
        reason='ImagePropertiesFilter: 1 -> 0')
    _rebuild(w).execute()
    assert [entry[0] for entry in w.log] == [
        'scheduler.select_destinations']
    [(changes, expected)] = w.saves
    assert changes == {'image_ref': OLD, 'vm_state': 'error',
                       'task_state': None}
    assert expected == ['rebuilding']
    assert 'ImagePropertiesFilter' in w.faults[0]
    assert w.events[-1] == ('finish', rebuild.EVENT, 'Error')
    assert w.spec_saves == []


# -- evacuate --------------------------------------------------------------

@pytest.fixture
def records(w, monkeypatch):
    def fake(name, result=None):
        def call(*args, **kwargs):
            w.log.append(('records.' + name,) + args[2:])
            return result
        return call
    monkeypatch.setattr(evacuate_records, 'start_evacuation',
                        fake('start_evacuation'))
    monkeypatch.setattr(evacuate_records, 'abandon_evacuation',
                        fake('abandon_evacuation', {'rp-dst'}))
    monkeypatch.setattr(evacuate_records, 'record_target',
                        lambda c, m, s: w.log.append(
                            ('records.record_target', s.service_host)))


def _evacuate(w, **kwargs):
    return evacuate.EvacuateTask(w.ctxt, w.instance, w.migration,
                                 w.scheduler, w.compute, **kwargs)


def test_evacuate_schedules_without_the_source_and_casts_to_the_target(
        w, records):
    _evacuate(w, host='dst', new_pass='pw').execute()
    names = [entry[0] for entry in w.log]
    assert names == ['records.start_evacuation',
                     'scheduler.select_destinations',
                     'records.record_target', 'compute.rebuild_instance']
    spec = w.log[1][1][0]
    assert spec.ignore_hosts == ['src']
    assert spec.requested_destination == {'host': 'dst', 'node': None}
    assert spec.force_hosts is None
    assert w.log[1][2] == {'return_alternates': True}
    _name, args, kwargs = w.log[3]
    assert args[1] == 'dst'
    assert kwargs['recreate'] is True and kwargs['node'] == 'dst-n0'
    assert [s.service_host for s in kwargs['host_list']] == ['dst', 'alt']
    assert kwargs['migration'] is w.migration
    assert kwargs['request_spec'].retry.num_attempts == 1


def test_evacuate_to_any_host_names_none(w, records):
    _evacuate(w).execute()
    assert w.log[1][1][0].requested_destination is None


def test_evacuate_that_fits_nowhere_is_abandoned(w, records):
    w.scheduler.answers['select_destinations'] = exception.NoValidHost(
        reason='RamFilter: 2 -> 0')
    _evacuate(w).execute()
    names = [entry[0] for entry in w.log]
    assert names == ['records.start_evacuation',
                     'scheduler.select_destinations',
                     'records.abandon_evacuation']
    assert 'RamFilter' in w.faults[0]
    assert w.events[-1] == ('finish', evacuate.EVENT, 'Error')


def test_a_failed_target_hands_over_to_the_next_alternate(w, records,
                                                          monkeypatch):
    replaced = []

    def replace(context, uuid, project, user, requests):
        replaced.append(requests)
        if len(replaced) == 1:
            raise exception.InsufficientCapacity(
                resource_class='VCPU', provider='alt1', requested=1,
                available=0)
        return {'rp-dst'}, {'rp-alt2': 2}
    monkeypatch.setattr(allocations, 'replace', replace)
    w.spec.retry = None
    _evacuate(w, request_spec=w.spec,
              host_list=[_selection('alt1'), _selection('alt2')]).execute()
    assert len(replaced) == 2
    names = [entry[0] for entry in w.log]
    assert names == ['records.record_target', 'compute.rebuild_instance']
    assert w.log[1][1][1] == 'alt2'


def test_no_alternate_left_is_abandoned(w, records):
    _evacuate(w, request_spec=w.spec, host_list=[]).execute()
    assert [entry[0] for entry in w.log] == [
        'records.abandon_evacuation']
    assert 'failed on every target' in w.faults[0]


def test_complete_evacuation_frees_the_source_once(w, monkeypatch):
    answers = [{'rp-src'}, None]
    monkeypatch.setattr(evacuate_records, 'complete_evacuation',
                        lambda c, m: answers.pop(0))
    assert evacuate.complete_evacuation(w.ctxt, w.migration)
    # The schedulers hear of it from the allocation write itself
    # (placement.changes), not from here.
    assert w.log == []
    assert not evacuate.complete_evacuation(w.ctxt, w.migration)


# -- timeouts --------------------------------------------------------------

def test_a_stuck_rebuild_ends_in_error(w, monkeypatch):
    from nova_lite.conductor.tasks import rebuild_timeouts
    stuck = _instance()
    evacuating = _instance()
    evacuating.uuid = '9b6f0d1e-3c2a-4f5b-9e7d-1a2b3c4d5e6f'
    evacuating.obj_reset_changes()
    asked = []

    def get_instances(cls, context, filters, **kwargs):
        asked.append(filters['task_state'])
        return [stuck, evacuating]

    def get_migrations(cls, context, filters, limit=None):
        return [w.migration] if filters['instance_uuid'] == \
            evacuating.uuid else []
    monkeypatch.setattr(objects.InstanceList, 'get_by_filters',
                        classmethod(get_instances))
    monkeypatch.setattr(objects.MigrationList, 'get_by_filters',
                        classmethod(get_migrations))
    abandoned = []
    monkeypatch.setattr(evacuate_records, 'abandon_evacuation',
                        lambda c, i, m: abandoned.append(i.uuid) or {'rp'})
    monkeypatch.setattr(objects.ServiceList, 'get_all',
                        classmethod(lambda cls, c: []))
    settled = rebuild_timeouts.fail_stuck_rebuilds(w.ctxt, 60)
    assert settled == [UUID, evacuating.uuid]
    assert asked == [['rebuilding', 'rebuild_block_device_mapping',
                      'rebuild_spawning']]
    assert w.saves == [({'vm_state': 'error', 'task_state': None},
                        ['rebuilding'])]
    assert abandoned == [evacuating.uuid]
    assert len(w.faults) == 2 and 'rebuilding' in w.faults[0]


def test_a_done_evacuation_is_no_orphan():
    """Its migration still holds the source until the old compute comes
    back: the orphan sweep must not free it before."""
    for status in evacuate_records.SOURCE_HOLDS:
        assert status not in allocations.MIGRATION_DONE_STATUSES
    assert evacuate_records.COMPLETED in allocations.MIGRATION_DONE_STATUSES


def test_an_evacuation_whose_target_is_down_is_abandoned_at_once(
        w, monkeypatch):
    """No timeout passed (the first query finds nothing), but the
    evacuation's target compute is down: abandoned now, with a fault
    naming it; a rebuild on a compute that is up is left alone."""
    from nova_lite.conductor.tasks import rebuild_timeouts
    rebuilding = _instance()
    evacuating = _instance()
    evacuating.uuid = '9b6f0d1e-3c2a-4f5b-9e7d-1a2b3c4d5e6f'
    evacuating.obj_reset_changes()
    w.migration.dest_compute = 'target'
    monkeypatch.setattr(
        objects.InstanceList, 'get_by_filters',
        classmethod(lambda cls, c, filters, **kw: []
                    if 'updated_before' in filters
                    else [rebuilding, evacuating]))
    monkeypatch.setattr(
        objects.MigrationList, 'get_by_filters',
        classmethod(lambda cls, c, filters, limit=None: [w.migration]
                    if filters['instance_uuid'] == evacuating.uuid else []))
    monkeypatch.setattr(
        objects.ServiceList, 'get_all',
        classmethod(lambda cls, c: [mock.Mock(
            host='target', binary='nova-lite-compute', is_up=False)]))
    abandoned = []
    monkeypatch.setattr(evacuate_records, 'abandon_evacuation',
                        lambda c, i, m: abandoned.append(i.uuid) or {'rp'})
    settled = rebuild_timeouts.fail_stuck_rebuilds(w.ctxt, 60)
    assert settled == [evacuating.uuid] == abandoned
    assert w.saves == []
    assert len(w.faults) == 1 and 'its compute target went down' in \
        w.faults[0]
