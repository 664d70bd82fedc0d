"""The unshelve workflow in the conductor: the request spec updated and
scheduled, the cast with the alternates, rescheduling, and a failure
that returns the server to SHELVED_OFFLOADED with no allocation, a fault
and an Error event (never stuck in unshelving). Also the task timeouts
for the shelve task states.

Placement, the scheduler, the image registry and the compute RPC are
fakes that record what happened, in order.
"""

import json
import types

import pytest

from nova_lite.conductor.tasks import timeouts
from nova_lite.conductor.tasks import unshelve
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.objects import instance_action
from nova_lite.placement import allocations

UUID = '8b6f0d1e-3c2a-4f5b-9e7d-1a2b3c4d5e6f'
IMAGE = '0a4e7c36-0d39-4d4e-8f0b-0c9f5f3b2d11'
V = fields.VMState
T = fields.TaskState


def _flavor():
    return objects.Flavor(id=1, flavorid='1', name='1', vcpus=1,
                          memory_mb=512, root_gb=1, ephemeral_gb=0, swap=0,
                          extra_specs={})


def _instance():
    return objects.Instance(uuid=UUID, project_id='p', user_id='u',
                            flavor=_flavor(), host=None, node=None,
                            compute_node_uuid=None,
                            vm_state=V.SHELVED_OFFLOADED,
                            task_state=T.UNSHELVING,
                            shelved_image_id=IMAGE)


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
def w(monkeypatch):
    w = types.SimpleNamespace(log=[], events=[], faults=[], saves=[])
    w.ctxt = nl_context.get_admin_context()
    w.instance = _instance()
    w.spec = objects.RequestSpec(instance_uuid=UUID, project_id='p',
                                 user_id='u', flavor=_flavor(),
                                 availability_zone='az1',
                                 instance_group=None, force_hosts=['x'])
    w.scheduler = Recorder(w.log, 'scheduler', {
        'select_destinations': [[_selection('dst'), _selection('alt')]]})
    w.compute = Recorder(w.log, 'compute')
    monkeypatch.setattr(objects.RequestSpec, 'get_by_instance_uuid',
                        classmethod(lambda cls, c, u: w.spec))
    monkeypatch.setattr(objects.RequestSpec, 'save',
                        lambda self: w.log.append(
                            ('spec.save', (self.availability_zone,), {})))
    monkeypatch.setattr(unshelve.image_api, 'get', lambda c, image_id: {
        'id': image_id, 'name': 'vm-shelved', 'properties': {}})

    def save(self, expected_task_state=None, expected_vm_state=None):
        w.saves.append((self.obj_get_changes(), expected_task_state))
        self.obj_reset_changes()
    monkeypatch.setattr(objects.Instance, 'save', save)
    monkeypatch.setattr(allocations, 'remove',
                        lambda c, uuid: w.log.append(('release', (uuid,),
                                                      {})) or {'dst'})
    monkeypatch.setattr(objects.InstanceFault, 'create',
                        lambda self: w.faults.append(self.message))
    monkeypatch.setattr(
        instance_action.InstanceActionEvent, 'event_finish',
        classmethod(lambda cls, c, u, event, **kw: w.events.append(
            (event, kw.get('result'), kw.get('details')))))
    monkeypatch.setattr(instance_action.InstanceActionEvent, 'event_start',
                        classmethod(lambda cls, *a, **kw: None))
    return w


def _task(w, **kwargs):
    return unshelve.UnshelveTask(w.ctxt, w.instance, w.scheduler, w.compute,
                                 **kwargs)


def _names(w):
    return [entry[0] for entry in w.log]


def test_unshelve_schedules_with_the_new_zone_and_the_snapshot(w):
    _task(w, availability_zone='az2').execute()
    assert _names(w) == ['spec.save', 'scheduler.select_destinations',
                         'compute.unshelve_instance']
    assert w.log[0][1] == ('az2',)
    assert w.spec.image.id == IMAGE
    spec = w.log[1][1][0]
    assert spec.availability_zone == 'az2'
    assert spec.force_hosts is None and spec.ignore_hosts == []
    assert spec.requested_destination is None
    _name, args, kwargs = w.log[2]
    assert args == (w.instance, 'dst')
    assert kwargs['node'] == 'dst-n0'
    assert [s.service_host for s in kwargs['host_list']] == ['dst', 'alt']
    assert kwargs['request_spec'].retry.hosts == [['dst', 'dst-n0']]
    assert w.events == [(unshelve.EVENT, None, None)]


def test_a_named_host_is_a_requested_destination_not_forced(w):
    _task(w, host='alt').execute()
    spec = w.log[1][1][0]
    assert spec.requested_destination == {'host': 'alt', 'node': None}
    assert spec.force_hosts is None


def test_nothing_fits_returns_it_to_shelved_offloaded(w):
    w.scheduler.answers['select_destinations'] = exception.NoValidHost(
        reason='RamFilter: 2 -> 0')
    _task(w).execute()
    assert 'compute.unshelve_instance' not in _names(w)
    assert ('release', (UUID,), {}) in w.log
    changes, expected = w.saves[-1]
    assert expected == [T.UNSHELVING]
    assert changes['vm_state'] == V.SHELVED_OFFLOADED
    assert changes['task_state'] is None
    assert changes['host'] is None
    assert w.faults and 'RamFilter: 2 -> 0' in w.faults[0]
    [(event, result, details)] = w.events
    assert (event, result) == (unshelve.EVENT,
                               instance_action.RESULT_ERROR)
    assert 'RamFilter' in details


def test_a_vanished_snapshot_fails_cleanly(w, monkeypatch):
    def gone(context, image_id):
        raise exception.ImageNotFound(image_id=image_id)
    monkeypatch.setattr(unshelve.image_api, 'get', gone)
    _task(w).execute()
    assert 'scheduler.select_destinations' not in _names(w)
    assert w.saves[-1][0]['task_state'] is None
    assert IMAGE in w.faults[0]


def test_a_reschedule_moves_the_allocation_to_the_alternate(w,
                                                            monkeypatch):
    monkeypatch.setattr(allocations, 'replace',
                        lambda c, *a: w.log.append(('replace', a, {}))
                        or ({'dst'}, {'alt'}))
    w.spec.record_attempt('dst', 'dst-n0')
    _task(w, request_spec=w.spec, host_list=[_selection('alt')]).execute()
    assert _names(w) == ['replace', 'compute.unshelve_instance']
    assert w.log[1][1] == (w.instance, 'alt')


def test_no_alternate_left_returns_it_to_shelved_offloaded(w):
    w.spec.record_attempt('dst', 'dst-n0')
    _task(w, request_spec=w.spec, host_list=[]).execute()
    assert ('release', (UUID,), {}) in w.log
    assert w.saves[-1][0]['vm_state'] == V.SHELVED_OFFLOADED
    assert 'dst (dst-n0)' in w.faults[0]


def test_shelve_task_states_are_reset_by_the_task_timeout():
    for state in (T.IMAGE_SNAPSHOT, T.IMAGE_PENDING_UPLOAD,
                  T.IMAGE_UPLOADING, T.SHELVING,
                  T.SHELVING_IMAGE_PENDING_UPLOAD,
                  T.SHELVING_IMAGE_UPLOADING, T.SHELVING_OFFLOADING,
                  T.UNSHELVING):
        assert state in timeouts.ACTION_TASK_STATES


def test_a_stuck_unshelve_gives_its_claim_back(w, monkeypatch):
    instance = _instance()
    instance.host = 'dst'
    instance.obj_reset_changes()
    monkeypatch.setattr(objects.InstanceList, 'get_by_filters',
                        classmethod(lambda cls, c, f, **kw: [instance]))
    monkeypatch.setattr(objects.ServiceList, 'get_all',
                        classmethod(lambda cls, c: []))
    assert timeouts.reset_stuck_tasks(w.ctxt, 60) == [UUID]
    assert ('release', (UUID,), {}) in w.log
    assert w.saves[-1][0]['host'] is None
    assert instance.vm_state == V.SHELVED_OFFLOADED
