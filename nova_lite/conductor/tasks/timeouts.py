"""No instance stays in BUILD, or in an action's task state, forever.

Builds older than ``[conductor] build_timeout`` are put into ERROR with a
fault that says at which stage they stopped, and their allocations are
released. So are builds on a compute whose service is down (no heartbeat
within ``service_down_time``) at once, without waiting for the timeout:
that compute lost them (a compute that comes back reconciles its own at
start, see ``compute/recovery.py``; one that stays away would leave them
for the whole build timeout). A compute that was only cut off and still
finishes such a build finds its ACTIVE save refused and removes the VM.

A server left in the task state of an action (its compute died
mid-operation, or the cast was lost) for ``[conductor] task_timeout`` gets
the task state cleared and a fault; its vm_state stays what it was, which
is what the server still is as far as anyone knows. So does one whose
compute is down, at once: a compute that comes back and still finishes
the action finds its conditional save refused.
"""

import datetime

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.conductor.tasks import destroy
from nova_lite.db import api as db_api
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.placement import allocations
from nova_lite.quota import usages as quota_usages

LOG = logging.getLogger(__name__)


def fail_stuck_builds(context, timeout):
    """ERROR every instance building for longer than ``timeout`` seconds.

    Returns the provider uuids whose allocations were released.
    """
    cutoff = (timeutils.utcnow().replace(tzinfo=None)
              - datetime.timedelta(seconds=timeout))
    stuck = objects.InstanceList.get_by_filters(
        context, {'building_before': cutoff}, sort_key='id', sort_dir='asc')
    released = set()
    for instance in stuck:
        released |= _fail_build(context, instance, exception.BuildTimedOut(
            timeout=timeout, task_state=instance.task_state,
            host=instance.host or '(none)'))
    return released


def down_computes(context):
    """The hosts of the compute services seen down now."""
    return {svc.host for svc in objects.ServiceList.get_all(context)
            if svc.binary == 'nova-lite-compute' and not svc.is_up}


def up_computes(context):
    """The hosts of the compute services seen up now."""
    return {svc.host for svc in objects.ServiceList.get_all(context)
            if svc.binary == 'nova-lite-compute' and svc.is_up}


def fail_builds_on_down_computes(context, down=None):
    """ERROR every build whose compute service is down.

    Returns the provider uuids whose allocations were released.
    ``down``: the hosts of ``down_computes``, when the caller read them.
    """
    down = down_computes(context) if down is None else down
    released = set()
    for host in sorted(down):
        for instance in objects.InstanceList.get_by_host(context, host):
            if instance.vm_state != fields.VMState.BUILDING:
                continue
            released |= _fail_build(context, instance, exception.BuildHostDown(
                task_state=instance.task_state, host=host))
    return released


def _fail_build(context, instance, error):
    """ERROR ``instance`` with ``error`` as its fault, give back its quota
    and allocations; nothing if it left BUILD meanwhile. Returns the
    provider uuids released."""
    try:
        released = _fail_build_in_db(context, instance, error)
    except (exception.InstanceNotFound, exception.InstanceInvalidState):
        return set()  # finished, failed or deleted meanwhile
    LOG.warning('Instance %s: %s', instance.uuid, error.format_message())
    return released


@quota_usages.retry
def _fail_build_in_db(context, instance, error):
    # One transaction: whoever sees the server in ERROR sees its fault,
    # and its quota and allocations already given back.
    with db_api.writer.using(context) as session:
        instance.vm_state = fields.VMState.ERROR
        instance.task_state = None
        instance.save(expected_vm_state=[fields.VMState.BUILDING])
        objects.InstanceFault.from_exception(
            context, instance.uuid, error).create()
        destroy.release_quota_in_session(session, instance.uuid)
        return allocations.remove_in_session(session, instance.uuid)


# Task states reset by reset_stuck_tasks. Moves add theirs here.
ACTION_TASK_STATES = (
    fields.TaskState.REBOOTING, fields.TaskState.REBOOTING_HARD,
    fields.TaskState.POWERING_OFF, fields.TaskState.POWERING_ON,
    fields.TaskState.PAUSING, fields.TaskState.UNPAUSING,
    fields.TaskState.SUSPENDING, fields.TaskState.RESUMING,
    # createImage and shelving (compute/shelve.py). An unshelve of an
    # offloaded server also gives back what it holds in placement.
    fields.TaskState.IMAGE_SNAPSHOT, fields.TaskState.IMAGE_PENDING_UPLOAD,
    fields.TaskState.IMAGE_UPLOADING, fields.TaskState.SHELVING,
    fields.TaskState.SHELVING_IMAGE_PENDING_UPLOAD,
    fields.TaskState.SHELVING_IMAGE_UPLOADING,
    fields.TaskState.SHELVING_OFFLOADING, fields.TaskState.UNSHELVING,
)


def reset_stuck_tasks(context, timeout, task_states=ACTION_TASK_STATES,
                      down=None):
    """Clear the task state of instances in one of ``task_states`` not
    updated for ``timeout`` seconds, or whose compute is down, with a
    fault saying so. Returns the uuids reset."""
    cutoff = (timeutils.utcnow().replace(tzinfo=None)
              - datetime.timedelta(seconds=timeout))
    stuck = objects.InstanceList.get_by_filters(
        context, {'task_state': list(task_states), 'updated_before': cutoff},
        sort_key='id', sort_dir='asc')
    reset = [instance.uuid for instance in stuck
             if _reset(context, instance, exception.InstanceTaskTimedOut(
                 instance_uuid=instance.uuid,
                 task_state=instance.task_state, timeout=timeout,
                 host=instance.host or '(none)'))]
    down = down_computes(context) if down is None else down
    if down:
        on_down = objects.InstanceList.get_by_filters(
            context, {'task_state': list(task_states),
                      'host': sorted(down)}, sort_key='id', sort_dir='asc')
        reset += [instance.uuid for instance in on_down
                  if instance.uuid not in reset
                  and _reset(context, instance, exception.TaskHostDown(
                      instance_uuid=instance.uuid,
                      task_state=instance.task_state, host=instance.host))]
    return reset


def _reset(context, instance, error):
    """Clear the task state with ``error`` as the fault; False if the
    server changed meanwhile."""
    task_state = instance.task_state
    instance.task_state = None
    try:
        # Conditional: a compute finishing just now wins.
        instance.save(expected_task_state=[task_state])
    except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
        return False
    objects.InstanceFault.from_exception(context, instance.uuid,
                                         error).create()
    LOG.warning('%s', error.format_message())
    _free_unshelve(context, instance, task_state)
    return True


def _free_unshelve(context, instance, task_state):
    """An offloaded server whose unshelve never finished holds a claim on
    a host it is not on: free it (it is still SHELVED_OFFLOADED)."""
    if (task_state != fields.TaskState.UNSHELVING
            or instance.vm_state != fields.VMState.SHELVED_OFFLOADED):
        return
    instance.host = None
    instance.node = None
    instance.compute_node_uuid = None
    try:
        instance.save(expected_task_state=[None])
    except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
        return
    allocations.remove(context, instance.uuid)


def remove_orphaned_allocations(context, min_age):
    """Release allocations whose instance is gone.

    A user can delete a server while the scheduler is claiming for it; the
    claim then outlives the instance. Anything older than ``min_age``
    seconds whose consumer is not a live instance is released. Returns the
    provider uuids touched.
    """
    cutoff = (timeutils.utcnow().replace(tzinfo=None)
              - datetime.timedelta(seconds=min_age))
    released = set()
    for consumer in allocations.orphaned_consumers(context, cutoff):
        LOG.warning('Releasing allocations of %s: no such live instance',
                    consumer)
        released |= allocations.remove(context, consumer)
    return released
