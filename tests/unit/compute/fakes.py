"""Objects for the compute tests, built in memory (no database)."""

from oslo_utils import uuidutils

from nova_lite import objects
from nova_lite.objects import fields


def flavor(vcpus=2, memory_mb=2048, root_gb=20, ephemeral_gb=0, swap=0):
    return objects.Flavor(flavorid='f-%d-%d' % (vcpus, memory_mb),
                          name='flavor', vcpus=vcpus, memory_mb=memory_mb,
                          root_gb=root_gb, ephemeral_gb=ephemeral_gb,
                          swap=swap)


def instance(host=None, node=None, vm_state=fields.VMState.BUILDING,
             task_state=fields.TaskState.SCHEDULING, project_id='p1',
             **flavor_kwargs):
    inst = objects.Instance(
        uuid=uuidutils.generate_uuid(), project_id=project_id,
        user_id='u1', flavor=flavor(**flavor_kwargs), host=host, node=node,
        vm_state=vm_state, task_state=task_state,
        power_state=fields.PowerState.NOSTATE)
    inst.obj_reset_changes(recursive=True)
    return inst


def selection(host, node, node_uuid=None):
    return objects.Selection(service_host=host, nodename=node,
                             compute_node_uuid=node_uuid
                             or uuidutils.generate_uuid(),
                             allocation_request=None,
                             allocation_request_version=None,
                             availability_zone=None)


def service(disabled=False, service_id=7, host='host1'):
    return objects.Service(id=service_id, host=host,
                           binary='nova-lite-compute', disabled=disabled)
