"""Server actions on the compute: reboot, stop, start, pause, suspend, ...

The API set the instance's task_state (``rebooting``, ``powering-off``,
...) and cast here; ``run`` performs one action through the driver and
saves the outcome, conditional on that task_state (a delete that came in
between wins). Every step is recorded as an instance action event named
``compute_<method>``, as Nova names them.

On failure the instance gets a fault, its task_state is cleared and its
vm_state kept (a failed reboot leaves it in ERROR, as Nova does: the
guest's state is then unknown), and the event says Error with the
traceback.
"""

import collections
import dataclasses
import threading
import traceback

from oslo_log import log as logging

from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.objects import instance_action

LOG = logging.getLogger(__name__)

_T = fields.TaskState
_V = fields.VMState
_P = fields.PowerState
# The instance was deleted (or moved to another task) meanwhile.
_GONE = (exception.InstanceNotFound, exception.UnexpectedTaskStateError)


@dataclasses.dataclass(frozen=True)
class Action:
    """One compute action: the driver call and the states around it."""
    method: str            # the RPC method, e.g. 'reboot_instance'
    driver_call: str       # the ComputeDriver method
    task_states: tuple     # the task_states the API may have set
    vm_state: str          # the vm_state once done
    power_state: int       # the power_state once done
    error_vm_state: str = None   # vm_state after a failure (None: kept)

    @property
    def event(self):
        return 'compute_' + self.method


ACTIONS = {a.method: a for a in (
    Action('reboot_instance', 'reboot', (_T.REBOOTING, _T.REBOOTING_HARD),
           _V.ACTIVE, _P.RUNNING, error_vm_state=_V.ERROR),
    Action('stop_instance', 'power_off', (_T.POWERING_OFF,), _V.STOPPED,
           _P.SHUTDOWN),
    Action('start_instance', 'power_on', (_T.POWERING_ON,), _V.ACTIVE,
           _P.RUNNING),
    Action('pause_instance', 'pause', (_T.PAUSING,), _V.PAUSED, _P.PAUSED),
    Action('unpause_instance', 'unpause', (_T.UNPAUSING,), _V.ACTIVE,
           _P.RUNNING),
    Action('suspend_instance', 'suspend', (_T.SUSPENDING,), _V.SUSPENDED,
           _P.SUSPENDED),
    Action('resume_instance', 'resume', (_T.RESUMING,), _V.ACTIVE,
           _P.RUNNING),
)}
# An NMI changes neither state; the API sets no task (as Nova's).
CRASH_DUMP = Action('trigger_crash_dump', 'trigger_crash_dump', (None,),
                    None, None)
ACTIONS[CRASH_DUMP.method] = CRASH_DUMP


class RanRequests:
    """The (instance, request id, method) of the actions this compute
    ran lately (a move's prep is keyed by its migration's uuid instead of
    the request id). A conductor sends an action no compute started again
    (``conductor/tasks/lost_actions.py``); if this compute had the first
    cast after all (its start event was lost, or it sat in the queue),
    the second must not run the action twice."""

    def __init__(self, size=4096):
        self._seen = collections.OrderedDict()
        self._lock = threading.Lock()
        self._size = size

    def first_time(self, instance_uuid, request_id, method):
        """True the first time this request asks ``method``."""
        key = (instance_uuid, request_id, method)
        with self._lock:
            if key in self._seen:
                return False
            self._seen[key] = True
            if len(self._seen) > self._size:
                self._seen.popitem(last=False)
            return True


def event_start(context, instance, event, host):
    """Record an event's start; an action not found is logged only (the
    record must never stop the work)."""
    try:
        instance_action.InstanceActionEvent.event_start(
            context, instance.uuid, event, host=host)
    except Exception as exc:
        LOG.warning('Cannot record the start of %s on instance %s: %s',
                    event, instance.uuid, exc)


def event_finish(context, instance, event, error=None):
    """Record an event's end: Success, or Error with ``error``'s
    message and traceback."""
    kwargs = {}
    if error is not None:
        kwargs = {'result': instance_action.RESULT_ERROR,
                  'details': message(error),
                  'traceback': ''.join(
                      traceback.format_exception(error)).strip()}
    try:
        instance_action.InstanceActionEvent.event_finish(
            context, instance.uuid, event, **kwargs)
    except Exception as exc:
        LOG.warning('Cannot record the end of %s on instance %s: %s',
                    event, instance.uuid, exc)


def run(context, driver, host, instance, method, **kwargs):
    """Perform ``method`` (a key of ACTIONS) on ``instance`` with
    ``driver`` and save the result. Returns True on success, False on a
    failure (recorded as a fault) or when the instance went away."""
    action = ACTIONS[method]
    event_start(context, instance, action.event, host)
    try:
        getattr(driver, action.driver_call)(context, instance, **kwargs)
    except Exception as exc:
        _failed(context, host, instance, action, exc)
        return False
    if action.vm_state is None:
        event_finish(context, instance, action.event)
        LOG.info('%s of instance %s done', method, instance.uuid)
        return True
    instance.vm_state = action.vm_state
    instance.power_state = action.power_state
    instance.task_state = None
    try:
        instance.save(expected_task_state=list(action.task_states))
    except _GONE as exc:
        LOG.info('Instance %s changed during %s; leaving it: %s',
                 instance.uuid, method, exc)
        event_finish(context, instance, action.event, exc)
        return False
    event_finish(context, instance, action.event)
    LOG.info('%s of instance %s done', method, instance.uuid)
    return True


def _failed(context, host, instance, action, error):
    LOG.error('%s of instance %s failed: %s', action.method, instance.uuid,
              message(error))
    record_fault(context, host, instance, error)
    event_finish(context, instance, action.event, error)
    if action.vm_state is None:
        return
    if action.error_vm_state:
        instance.vm_state = action.error_vm_state
    instance.task_state = None
    try:
        instance.save(expected_task_state=list(action.task_states))
    except _GONE:
        pass


def vm_step(driver_call, context, instance, *args):
    """Run a driver step whose missing VM fails the step.

    InstanceNotFound from ``instance.save`` means the user deleted the
    server (a move or rebuild just stops), so the driver's own InstanceNotFound
    (the VM is not on this host) must not pass for it: the server would
    keep its task state until ``[conductor] task_timeout``.
    """
    try:
        return driver_call(context, instance, *args)
    except exception.InstanceNotFound as exc:
        raise exception.InstanceOperationFailed(
            operation=driver_call.__name__, instance_uuid=instance.uuid,
            reason='the hypervisor has no such VM: %s' % message(exc)
        ) from exc


def record_fault(context, host, instance, error):
    """An InstanceFault saying ``error``, with its traceback."""
    details = ''.join(traceback.format_exception(error)).strip()
    try:
        objects.InstanceFault.from_exception(
            context, instance.uuid, error, host=host,
            details=details).create()
    except Exception:
        LOG.exception('Recording the fault of instance %s failed',
                      instance.uuid)


def message(error):
    """What to say of ``error`` in a log line, a fault or an event."""
    if hasattr(error, 'format_message'):
        return error.format_message()
    return str(error) or type(error).__name__
