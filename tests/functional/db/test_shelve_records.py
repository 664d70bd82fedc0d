"""The records of snapshots and shelving on every backend: a snapshot's
image through its statuses and deleted, and an offload's conditional
write."""

from oslo_utils import uuidutils
import pytest

from nova_lite.conductor.tasks import shelve_offload
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.placement import allocations
from nova_lite.placement import providers


@pytest.fixture
def ctxt(database):
    return nl_context.RequestContext(user_id='u1', project_id='p1',
                                     is_admin=True, overwrite=False)


def test_a_snapshot_image_from_queued_to_active_then_deleted(ctxt):
    image = objects.Image.create_snapshot(
        ctxt, 'vm-shelved', 'p1', 1, 128,
        {'image_type': 'snapshot', 'instance_uuid': 'x'})
    assert image.status == 'queued'
    assert image_api.get(ctxt, image.id)['visibility'] == 'private'
    objects.Image.set_status(ctxt, image.id, 'saving')
    done = objects.Image.set_status(ctxt, image.id, 'active', size=4096)
    assert (done.status, done.size) == ('active', 4096)
    stored = image_api.get(ctxt, image.id)
    assert stored['properties']['image_type'] == 'snapshot'
    assert (stored['min_disk'], stored['min_ram']) == (1, 128)
    assert objects.Image.delete_by_id(ctxt, image.id) is True
    assert objects.Image.delete_by_id(ctxt, image.id) is False
    with pytest.raises(exception.ImageNotFound):
        image_api.get(ctxt, image.id)
    with pytest.raises(exception.ImageNotFound):
        objects.Image.set_status(ctxt, image.id, 'active')


def test_save_offloaded_is_conditional_and_clears_the_host(ctxt):
    flavor = objects.Flavor(ctxt, flavorid='1', name='m1.tiny',
                            memory_mb=512, vcpus=1, root_gb=1)
    flavor.create()
    instance = objects.Instance(
        ctxt, uuid=uuidutils.generate_uuid(), project_id='p1', user_id='u1',
        display_name='vm', flavor=flavor, image_ref='img', host='host1',
        node='n1', metadata={}, vm_state=fields.VMState.SHELVED,
        task_state=fields.TaskState.SHELVING_OFFLOADING)
    instance.create()
    instance.vm_state = fields.VMState.SHELVED_OFFLOADED
    instance.host = None
    instance.node = None
    instance.task_state = None
    with pytest.raises(exception.UnexpectedTaskStateError):
        instance.save_offloaded(expected_task_state=[None])
    assert instance.save_offloaded(
        expected_task_state=[fields.TaskState.SHELVING_OFFLOADING]) == []
    stored = objects.Instance.get_by_uuid(ctxt, instance.uuid)
    assert (stored.vm_state, stored.host, stored.node) == (
        fields.VMState.SHELVED_OFFLOADED, None, None)


def test_the_offload_task_frees_the_host_and_keeps_the_quota(ctxt):
    provider = uuidutils.generate_uuid()
    providers.ensure_provider(ctxt, provider, 'n1')
    providers.set_inventories(ctxt, provider, {'VCPU': {
        'total': 4, 'reserved': 0, 'min_unit': 1, 'max_unit': 4,
        'step_size': 1, 'allocation_ratio': 1.0}})
    flavor = objects.Flavor(ctxt, flavorid='2', name='m1.small',
                            memory_mb=512, vcpus=1, root_gb=1)
    flavor.create()
    instance = objects.Instance(
        ctxt, uuid=uuidutils.generate_uuid(), project_id='p1', user_id='u1',
        display_name='vm', flavor=flavor, image_ref='img', host='host1',
        node='n1', metadata={}, vm_state=fields.VMState.SHELVED,
        task_state=fields.TaskState.SHELVING_OFFLOADING)
    instance.create()
    allocations.claim(ctxt, instance.uuid, 'p1', 'u1',
                      {provider: {'VCPU': 1}})
    with pytest.raises(exception.UnexpectedTaskStateError):
        shelve_offload.offload(ctxt, instance, expected_task_state=[None])
    # Nothing written by the refused one.
    assert allocations.get_for_consumer(ctxt, instance.uuid) == {
        provider: {'VCPU': 1}}
    instance = objects.Instance.get_by_uuid(ctxt, instance.uuid)
    assert shelve_offload.offload(ctxt, instance) == [provider]
    stored = objects.Instance.get_by_uuid(ctxt, instance.uuid)
    assert (stored.vm_state, stored.task_state, stored.host, stored.node,
            stored.power_state) == (fields.VMState.SHELVED_OFFLOADED, None,
                                    None, None, fields.PowerState.SHUTDOWN)
    assert allocations.get_for_consumer(ctxt, instance.uuid) == {}
