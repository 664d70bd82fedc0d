"""Offloading a shelved server: what it means for the records.

Runs in the conductor, once the compute removed the VM from its host
(compute/shelve.py). One step, one transaction: the server becomes
SHELVED_OFFLOADED, powered off, with no task and no host, node or
compute node, conditional on the task the compute worked under
(``shelving_offloading``), and the host's allocations are freed (the
write tells the schedulers). Its quota stays counted, as Nova's does:
the server still exists and may be unshelved anywhere. Nothing is undone
on failure: nothing was written. A server that left the task meanwhile
(deleted, or its task reset) raises UnexpectedTaskStateError
(InstanceNotFound) and keeps its records.

Computes reach it with the conductor's ``shelve_offloaded`` (RPC 1.9);
one pinned below, or of an older release, through the remotable
``Instance.save_offloaded`` it calls (object_action brings it here).

    released = shelve_offload.offload(context, instance)
"""

from nova_lite.db import api as db_api
from nova_lite.objects import fields
from nova_lite.placement import allocations

_T = fields.TaskState
# An offloaded server: off, and on no host.
OFFLOADED = {
    'vm_state': fields.VMState.SHELVED_OFFLOADED,
    'power_state': fields.PowerState.SHUTDOWN,
    'task_state': None,
    'host': None,
    'node': None,
    'compute_node_uuid': None,
}


def offload(context, instance,
            expected_task_state=(_T.SHELVING_OFFLOADING,)):
    """Save ``instance`` offloaded and free its host's allocations, in one
    transaction, conditional on ``expected_task_state``. Returns the
    sorted uuids of the providers freed."""
    for name, value in OFFLOADED.items():
        setattr(instance, name, value)
    with db_api.writer.using(context) as session:
        instance.save(expected_task_state=list(expected_task_state))
        released = allocations.remove_in_session(session, instance.uuid)
    return sorted(released)
