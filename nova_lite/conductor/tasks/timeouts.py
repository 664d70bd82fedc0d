"""No instance stays in BUILD forever.

Builds older than ``[conductor] build_timeout`` are put into ERROR with a
fault that says at which stage they stopped, and their allocations are
released.
"""

import datetime

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.placement import allocations

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
        task_state = instance.task_state
        instance.vm_state = fields.VMState.ERROR
        instance.task_state = None
        try:
            instance.save(expected_vm_state=[fields.VMState.BUILDING])
        except (exception.InstanceNotFound, exception.InstanceInvalidState):
            continue  # finished, failed or deleted meanwhile
        error = exception.BuildTimedOut(
            timeout=timeout, task_state=task_state,
            host=instance.host or '(none)')
        objects.InstanceFault.from_exception(
            context, instance.uuid, error).create()
        instance.release_quota()
        released |= allocations.remove(context, instance.uuid)
        LOG.warning('Instance %s: %s', instance.uuid, error.format_message())
    return released


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
