"""The ACTIVE save that ends a build, and what a lost reply means.

The compute saves a build ACTIVE through the conductor. When that call
gets no answer within ``rpc_response_timeout`` (a stalled database or
conductor, a reply lost after the conductor committed), the save may have
committed, may still commit (it waits on a lock) or may never have
reached the database. Undoing the build then (destroying the VM, giving
the claim back, rescheduling) would leave an ACTIVE server whose VM is
gone whenever the save did commit. So the compute asks before it undoes:
it reads the instance again through the conductor and

* ACTIVE on this host: the save committed; the build is done;
* still spawning here: the save did not commit (or not yet); it is sent
  again, conditionally on the instance still spawning, so a first save
  that commits meanwhile makes the second one refused, never applied
  twice, and the next read finds ACTIVE;
* anything else (deleted, put in ERROR by the conductor's build timeout,
  handed to another host): the build is no longer this compute's to
  finish, and it undoes it (``exception.UnexpectedTaskStateError``).

Up to ``[DEFAULT] build_outcome_retries`` reads. If none of them gets an
answer, the outcome stays unknown (``BuildOutcomeUnknown``): the compute
keeps the VM and its claim, and leaves the instance to the conductor
(its build timeout puts it in ERROR, which a delete then cleans up like
any ERROR server with a VM). Either way the driver never lacks a VM that
the database says is ACTIVE.

    build_outcome.save_active(instance, host)
"""

import time

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import timeutils

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields

LOG = logging.getLogger(__name__)

# Seconds between two attempts to learn the outcome.
RETRY_INTERVAL = 1.0


class BuildOutcomeUnknown(Exception):
    """No answer came: whether the build was saved ACTIVE is unknown."""


def save_active(instance, host, sleep=time.sleep):
    """Save ``instance`` (spawned on ``host``) ACTIVE; return once ACTIVE
    is committed. Raises UnexpectedTaskStateError (or InstanceNotFound)
    when the instance is not this build's any more, BuildOutcomeUnknown
    when the conductor never answered."""
    instance.vm_state = fields.VMState.ACTIVE
    instance.task_state = None
    instance.power_state = fields.PowerState.RUNNING
    instance.launched_at = timeutils.utcnow()
    try:
        instance.save(expected_task_state=fields.TaskState.SPAWNING)
        return
    except messaging.MessagingTimeout as exc:
        LOG.warning('Saving instance %s ACTIVE got no answer (%s); asking '
                    'what was committed before undoing anything',
                    instance.uuid, exc)
    retries = CONF.build_outcome_retries
    for attempt in range(1, retries + 1):
        if _confirmed(instance, host):
            LOG.info('Instance %s: the ACTIVE save had committed (attempt '
                     '%d); keeping its VM', instance.uuid, attempt)
            return
        sleep(RETRY_INTERVAL)
    raise BuildOutcomeUnknown(
        'no answer from the conductor after %d attempt(s)' % retries)


def _confirmed(instance, host):
    """True if ACTIVE is committed (now, or by saving it again); False if
    the answer did not come. Raises when the build is not ours any more."""
    try:
        current = objects.Instance.get_by_uuid(instance._context,
                                               instance.uuid)
    except messaging.MessagingTimeout:
        return False
    if _is_active_here(current, host):
        _adopt(instance, current)
        return True
    if not (current.vm_state == fields.VMState.BUILDING and
            current.task_state == fields.TaskState.SPAWNING and
            current.host == host):
        raise exception.UnexpectedTaskStateError(
            instance_uuid=instance.uuid,
            expected=fields.TaskState.SPAWNING, actual=current.task_state)
    # Not committed yet: send it again, conditionally. If the first save
    # commits first, this one is refused and the next read says ACTIVE.
    try:
        instance.save(expected_task_state=fields.TaskState.SPAWNING)
    except (messaging.MessagingTimeout, exception.UnexpectedTaskStateError):
        return False
    return True


def _is_active_here(current, host):
    return (current.vm_state == fields.VMState.ACTIVE and
            current.task_state is None and current.host == host)


def _adopt(instance, current):
    """Make our copy what was committed (no change left to save)."""
    for name in ('vm_state', 'task_state', 'power_state', 'launched_at',
                 'updated_at'):
        setattr(instance, name, getattr(current, name))
    instance.obj_reset_changes()
