"""The build task fills what the scheduler's filters read: the server
group's members and hosts before scheduling, and the hosts tried so far
(RetryFilter) in every spec it casts."""

from unittest import mock

from oslo_utils import uuidutils

from nova_lite.conductor.tasks import build
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects

GROUP = '6f0c3c5e-8d0b-4bde-9a51-7d0c2b1f0a11'


def _instance():
    return objects.Instance(uuid=uuidutils.generate_uuid(),
                            project_id='p', user_id='u')


def _selection(host):
    return objects.Selection(service_host=host, nodename=host + '-n0',
                             compute_node_uuid=uuidutils.generate_uuid(),
                             allocation_request='{}',
                             allocation_request_version='1.0',
                             availability_zone='nova')


def _spec(group=None):
    flavor = objects.Flavor(flavorid='1', name='f', vcpus=1, memory_mb=64,
                            root_gb=1, extra_specs={})
    return objects.RequestSpec(project_id='p', user_id='u', flavor=flavor,
                               num_instances=1, scheduler_hints={},
                               instance_group=group)


def _task(spec, instances, host_lists=None):
    scheduler, compute = mock.Mock(), mock.Mock()
    task = build.BuildTask(nl_context.get_admin_context(), instances, spec,
                           host_lists, scheduler, compute)
    return task, scheduler, compute


def test_group_is_filled_before_scheduling(monkeypatch):
    group = objects.InstanceGroup(uuid=GROUP, name='g', policy='affinity',
                                  rules={}, project_id='p', user_id='u')
    fresh = objects.InstanceGroup(uuid=GROUP, name='g', policy='affinity',
                                  rules={}, project_id='p', user_id='u',
                                  members=['m1', 'm2'])
    monkeypatch.setattr(objects.InstanceGroup, 'get_by_uuid',
                        classmethod(lambda cls, ctxt, uuid: fresh))
    monkeypatch.setattr(objects.InstanceGroup, 'get_hosts',
                        lambda self, exclude=None: ['h1'])
    spec = _spec(group)
    instance = _instance()
    task, scheduler, compute = _task(spec, [instance])
    seen = {}

    def select(ctxt, spec_obj, uuids, return_alternates, timeout=None):
        seen['group'] = (list(spec_obj.instance_group.members),
                         list(spec_obj.instance_group.hosts))
        return [[_selection('h1'), _selection('h2')]]
    scheduler.select_destinations.side_effect = select
    task.execute()
    assert seen['group'] == (['m1', 'm2'], ['h1'])
    # The compute is not sent the group (see below).
    cast_spec = compute.build_and_run_instance.call_args[0][4]
    assert not cast_spec.obj_attr_is_set('instance_group')


def test_deleted_group_is_dropped(monkeypatch):
    def gone(cls, ctxt, uuid):
        raise exception.InstanceGroupNotFound(group_uuid=uuid)
    monkeypatch.setattr(objects.InstanceGroup, 'get_by_uuid',
                        classmethod(gone))
    spec = _spec(objects.InstanceGroup(uuid=GROUP, policy='affinity'))
    task, scheduler, compute = _task(spec, [_instance()])
    scheduler.select_destinations.return_value = [[_selection('h1')]]
    task.execute()
    assert spec.instance_group is None
    assert compute.build_and_run_instance.called


def test_each_cast_records_the_host_tried(monkeypatch):
    instance = _instance()
    task, scheduler, compute = _task(_spec(), [instance])
    scheduler.select_destinations.return_value = [
        [_selection('h1'), _selection('h2')]]
    task.execute()
    first = compute.build_and_run_instance.call_args[0][4]
    assert (first.retry.num_attempts, first.retry.hosts) == (
        1, [['h1', 'h1-n0']])
    # h1 failed: the compute hands back that spec and the alternates.
    monkeypatch.setattr(build.allocations, 'replace',
                        lambda *args: (set(), {}))
    task, scheduler, compute = _task(first, [instance],
                                     host_lists=[[_selection('h2')]])
    task.execute()
    second = compute.build_and_run_instance.call_args[0][4]
    assert (second.retry.num_attempts, second.retry.hosts) == (
        2, [['h1', 'h1-n0'], ['h2', 'h2-n0']])
    assert not scheduler.select_destinations.called


def test_the_compute_is_sent_the_image_and_the_attempts_only():
    """The flavor (the instance has it) and the hints stay with the
    conductor; the compute reads the image and hands the attempts back."""
    instance = _instance()
    spec = _spec()
    spec.scheduler_hints = {'different_host': [uuidutils.generate_uuid()]}
    spec.image = objects.ImageMeta(id=uuidutils.generate_uuid(),
                                   name='cirros')
    task, scheduler, compute = _task(spec, [instance])
    scheduler.select_destinations.return_value = [[_selection('h1')]]
    task.execute()
    sent = compute.build_and_run_instance.call_args[0][4]
    assert {name for name in sent.fields if sent.obj_attr_is_set(name)} == {
        'instance_uuid', 'num_instances', 'image', 'retry'}
    assert (sent.instance_uuid, sent.num_instances) == (instance.uuid, 1)
    assert sent.image.name == 'cirros'
    assert sent.retry.hosts == [['h1', 'h1-n0']]
    # The request itself keeps all it had, and no attempt.
    assert spec.flavor.flavorid == '1' and spec.scheduler_hints
    assert not spec.obj_attr_is_set('retry')
