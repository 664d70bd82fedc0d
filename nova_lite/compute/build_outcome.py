"""The saves of a build through the conductor, and what a lost reply means.

The compute saves a build spawning, then ACTIVE (or back to scheduling
when it hands the build back) through the conductor, each save
conditional on the task_state it expects. When a save gets no answer
within ``[DEFAULT] build_save_attempt_timeout`` (a conductor killed while
it held the call, a stalled database, a reply lost after the conductor
committed), the save may have committed, may still commit (it waits on a
lock) or may never have reached the database. Undoing the build then
(destroying the VM, giving the claim back, rescheduling) would leave an
ACTIVE server whose VM is gone whenever the save did commit. So the
compute asks before it undoes: it reads the instance again through the
conductor and

* the row holds what was saved (and this host): the save committed;
* still in the task_state expected: the save did not commit (or not
  yet); it is sent again, conditionally, so a first save that commits
  meanwhile makes the second one refused, never applied twice, and the
  next read finds it;
* anything else (deleted, put in ERROR by the conductor's build timeout,
  handed to another host): the build is no longer this compute's to
  finish, and it undoes it (``exception.UnexpectedTaskStateError``).

Up to ``[DEFAULT] build_outcome_retries`` reads. If none of them gets an
answer, the outcome stays unknown (``BuildOutcomeUnknown``): after the
VM was spawned, the compute keeps the VM and its claim, and leaves the
instance to the conductor (its build timeout puts it in ERROR, which a
delete then cleans up like any ERROR server with a VM). Either way the
driver never lacks a VM that the database says is ACTIVE.

    build_outcome.save_active(instance)
    build_outcome.save(instance, expected_task_states)
"""

import time

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import timeutils

from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields

LOG = logging.getLogger(__name__)

# Seconds between two attempts to learn the outcome.
RETRY_INTERVAL = 1.0


class BuildOutcomeUnknown(Exception):
    """No answer came: whether the build was saved ACTIVE is unknown."""


def save_active(instance, sleep=time.sleep, started=True):
    """Save ``instance`` (spawned on its host) ACTIVE; return once ACTIVE
    is committed. Raises UnexpectedTaskStateError (or InstanceNotFound)
    when the instance is not this build's any more, BuildOutcomeUnknown
    when the conductor never answered. ``started`` False: its save to
    spawning was a cast (conductor RPC 1.10) that may not be applied
    yet, or ever; its changes, still unsaved here, are written with
    these, from scheduling as well as from spawning."""
    instance.vm_state = fields.VMState.ACTIVE
    instance.task_state = None
    instance.power_state = fields.PowerState.RUNNING
    instance.launched_at = timeutils.utcnow()
    expected = (fields.TaskState.SPAWNING if started else
                [fields.TaskState.SCHEDULING, fields.TaskState.SPAWNING])
    save(instance, expected, sleep=sleep)


def save(instance, expected, sleep=time.sleep):
    """Save the changes of ``instance`` on condition that its task_state
    is ``expected`` (or one of them, a list), surviving a lost answer as
    described above (the build's other saves, to spawning and back to
    scheduling, are made the same way). Each attempt waits ``[DEFAULT]
    build_save_attempt_timeout`` seconds at most, so a conductor killed
    while it held the save costs seconds, not rpc_response_timeout."""
    wanted = {name: getattr(instance, name)
              for name in instance.obj_what_changed() & _OUTCOME}
    wanted['host'] = instance.host  # another host's is not ours
    try:
        with _attempt():
            instance.save(expected_task_state=expected)
        return
    except messaging.MessagingTimeout as exc:
        LOG.warning('Saving instance %s (%s) got no answer (%s); asking '
                    'what was committed before undoing anything',
                    instance.uuid, _describe(wanted), exc)
    retries = CONF.build_outcome_retries
    for attempt in range(1, retries + 1):
        if _confirmed(instance, wanted, expected):
            LOG.info('Instance %s: the save (%s) is committed (attempt '
                     '%d)', instance.uuid, _describe(wanted), attempt)
            return
        sleep(RETRY_INTERVAL)
    raise BuildOutcomeUnknown(
        'no answer from the conductor after %d attempt(s)' % retries)


# What a read-back compares: the fields that say where the build stands
# (not stamps, nor what a power sync may have written since).
_OUTCOME = frozenset(('vm_state', 'task_state', 'host', 'node'))


def _attempt():
    # rpc_response_timeout is registered once a transport is made.
    longest = getattr(CONF, 'rpc_response_timeout', None)
    seconds = CONF.build_save_attempt_timeout
    return conductor_rpcapi.call_timeout(
        min(seconds, longest) if longest else seconds)


def _describe(wanted):
    return ', '.join('%s=%s' % kv for kv in sorted(wanted.items()))


def _confirmed(instance, wanted, expected):
    """True if the save is committed (now, or by sending it again); False
    if the answer did not come. Raises when the instance moved on."""
    try:
        with _attempt():
            current = objects.Instance.get_by_uuid(instance._context,
                                                   instance.uuid)
    except messaging.MessagingTimeout:
        return False
    if all(getattr(current, name) == value
           for name, value in wanted.items()):
        _adopt(instance, current)
        return True
    if current.task_state not in (
            expected if isinstance(expected, list) else [expected]):
        raise exception.UnexpectedTaskStateError(
            instance_uuid=instance.uuid, expected=expected,
            actual=current.task_state)
    # Not committed yet: send it again, conditionally. If the first save
    # commits first, this one is refused and the next read finds it.
    try:
        with _attempt():
            instance.save(expected_task_state=expected)
    except (messaging.MessagingTimeout, exception.UnexpectedTaskStateError):
        return False
    return True


def _adopt(instance, current):
    """Make our copy what was committed (no change left to save)."""
    for name in instance.obj_what_changed() | {'updated_at'}:
        if current.obj_attr_is_set(name):
            setattr(instance, name, getattr(current, name))
    instance.obj_reset_changes()
