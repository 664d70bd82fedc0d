"""The compute API for server actions, API side.

What ``POST /servers/{id}/action`` asks of the cloud, and the checks every
action makes first, as Nova's compute API does:

* ``check_lock``: a locked server refuses anyone but an administrator
  (InstanceIsLocked, 409);
* ``start_task``: the server must be in one of the action's vm_states with
  no task running (InstanceActionInvalidState, 409, in Nova's words); the
  task_state is written conditionally, so of two racing requests one
  wins and the other gets the 409;
* ``record_action``: an InstanceAction row under the request id, which the
  compute's events attach to (``GET /servers/{id}/os-instance-actions``).

Other modules (moves, shelve, ...) build their actions from these same
helpers.
"""

from oslo_log import log as logging

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.quota import limits as quota_limits

LOG = logging.getLogger(__name__)

_T = fields.TaskState
_V = fields.VMState

# Nova's instance action names (what os-instance-actions shows).
REBOOT, STOP, START = 'reboot', 'stop', 'start'
PAUSE, UNPAUSE, SUSPEND, RESUME = 'pause', 'unpause', 'suspend', 'resume'
LOCK, UNLOCK, RESET_STATE, UPDATE = 'lock', 'unlock', 'resetState', 'update'
CRASH_DUMP = 'trigger_crash_dump'
# Nova's states a crash dump may be triggered from (with no task).
CRASH_DUMP_VM_STATES = (_V.ACTIVE, _V.PAUSED, _V.RESCUED, _V.RESIZED,
                        _V.ERROR)

# Power actions: the API name -> (allowed vm_states, task_state set, the
# compute RPC method). A reboot is refused while a reboot runs; Nova
# lets a HARD reboot interrupt a SOFT one, which this keeps simple.
POWER_ACTIONS = {
    STOP: ((_V.ACTIVE, _V.ERROR), _T.POWERING_OFF, 'stop_instance'),
    START: ((_V.STOPPED,), _T.POWERING_ON, 'start_instance'),
    PAUSE: ((_V.ACTIVE,), _T.PAUSING, 'pause_instance'),
    UNPAUSE: ((_V.PAUSED,), _T.UNPAUSING, 'unpause_instance'),
    SUSPEND: ((_V.ACTIVE,), _T.SUSPENDING, 'suspend_instance'),
    RESUME: ((_V.SUSPENDED,), _T.RESUMING, 'resume_instance'),
}
# Metadata changes: the vm_states Nova allows them in, with no task.
METADATA_VM_STATES = (_V.ACTIVE, _V.PAUSED, _V.SUSPENDED, _V.STOPPED)

# Every task state a power action sets.
POWER_TASK_STATES = (_T.REBOOTING, _T.REBOOTING_HARD) + tuple(
    task for _states, task, _method in POWER_ACTIONS.values())
REBOOT_VM_STATES = (_V.ACTIVE, _V.STOPPED, _V.PAUSED, _V.SUSPENDED,
                    _V.ERROR)


def check_lock(context, instance):
    """InstanceIsLocked (409) if ``instance`` is locked and the caller is
    not an administrator (Nova's check_instance_lock)."""
    if instance.locked and not context.is_admin:
        raise exception.InstanceIsLocked(instance_uuid=instance.uuid)


def check_state(instance, action, vm_states, task_states=(None,)):
    """InstanceActionInvalidState (409) unless ``instance`` is in one of
    ``vm_states`` and ``task_states``."""
    if vm_states is not None and instance.vm_state not in vm_states:
        raise exception.InstanceActionInvalidState(
            action=action, instance_uuid=instance.uuid, attr='vm_state',
            state=instance.vm_state)
    if task_states is not None and instance.task_state not in task_states:
        raise exception.InstanceActionInvalidState(
            action=action, instance_uuid=instance.uuid, attr='task_state',
            state=instance.task_state)


def start_task(instance, action, vm_states, task_state,
               task_states=(None,)):
    """Check the state and set ``task_state``, atomically: a concurrent
    change since the instance was read is a 409 as well."""
    check_state(instance, action, vm_states, task_states)
    instance.task_state = task_state
    try:
        instance.save(expected_task_state=list(task_states),
                      expected_vm_state=list(vm_states))
    except exception.UnexpectedTaskStateError as exc:
        raise exception.InstanceActionInvalidState(
            action=action, instance_uuid=instance.uuid, attr='task_state',
            state=exc.kwargs.get('actual'))
    except exception.InstanceInvalidState as exc:
        raise exception.InstanceActionInvalidState(
            action=action, instance_uuid=instance.uuid, attr='vm_state',
            state=exc.kwargs.get('state'))


def record_action(context, instance, action):
    """Create the InstanceAction of this request (through the
    conductor)."""
    record = objects.InstanceAction.for_request(context, instance.uuid,
                                                action)
    record.create()
    return record


class ActionAPI:
    """Server actions for the API handlers; RPC clients made on first
    use, so tests can replace them."""

    def __init__(self):
        self._compute = None

    @property
    def compute_rpcapi(self):
        if self._compute is None:
            self._compute = compute_rpcapi.ComputeAPI()
        return self._compute

    def _check_compute_speaks(self, instance, action):
        # A pin below 1.1 (a rolling upgrade not finished): the compute
        # cannot do it. Refuse before anything is written.
        if not self.compute_rpcapi.can_send_actions():
            raise exception.ComputeTooOldForAction(
                action=action, instance_uuid=instance.uuid,
                version=compute_rpcapi.ACTIONS_VERSION)

    def _needs_host(self, instance, action):
        if not instance.host:
            raise exception.InstanceActionInvalidState(
                action=action, instance_uuid=instance.uuid, attr='vm_state',
                state=instance.vm_state)

    def reboot(self, context, instance, reboot_type):
        """Start a SOFT or HARD reboot; 409 unless the server is settled
        in a state a reboot makes sense from."""
        check_lock(context, instance)
        self._check_compute_speaks(instance, REBOOT)
        self._needs_host(instance, REBOOT)
        task = _T.REBOOTING_HARD if reboot_type == 'HARD' else _T.REBOOTING
        # Nova allows a SOFT reboot only from ACTIVE (the guest must run).
        vm_states = REBOOT_VM_STATES if task == _T.REBOOTING_HARD else (
            _V.ACTIVE,)
        start_task(instance, REBOOT, vm_states, task)
        record_action(context, instance, REBOOT)
        self.compute_rpcapi.reboot_instance(context, instance, reboot_type)

    def power_action(self, context, instance, action):
        """stop, start, pause, unpause, suspend or resume (POWER_ACTIONS):
        set the task_state and cast to the compute."""
        vm_states, task_state, method = POWER_ACTIONS[action]
        check_lock(context, instance)
        self._check_compute_speaks(instance, action)
        self._needs_host(instance, action)
        start_task(instance, action, vm_states, task_state)
        record_action(context, instance, action)
        getattr(self.compute_rpcapi, method)(context, instance)

    def trigger_crash_dump(self, context, instance):
        """Have the compute send the guest an NMI (2.17); 409 when
        locked, in another state (or with a task), or while the compute
        is too old to do it. No task_state is set, as in Nova."""
        check_lock(context, instance)
        if not self.compute_rpcapi.can_send_crash_dump():
            raise exception.ComputeTooOldForAction(
                action=CRASH_DUMP, instance_uuid=instance.uuid,
                version=compute_rpcapi.CRASH_DUMP_VERSION)
        self._needs_host(instance, CRASH_DUMP)
        check_state(instance, CRASH_DUMP, CRASH_DUMP_VM_STATES)
        record_action(context, instance, CRASH_DUMP)
        self.compute_rpcapi.trigger_crash_dump(context, instance)

    # -- metadata ---------------------------------------------------

    @staticmethod
    def update_metadata(context, instance, metadata, replace=False,
                        action='update metadata'):
        """Merge ``metadata`` into the server's (or replace it all) and
        return the result. 409 when locked or in a state Nova refuses
        (building, error, a task running), 403 past the
        ``metadata_items`` quota."""
        check_lock(context, instance)
        check_state(instance, action, METADATA_VM_STATES)
        merged = dict(metadata) if replace else dict(
            instance.metadata or {}, **metadata)
        _check_metadata_quota(context, instance, len(merged))
        instance.metadata = merged
        _save_settled(instance, action)
        return merged

    @staticmethod
    def delete_metadata_item(context, instance, key):
        """Remove one key; 404 if the server has no such key."""
        check_lock(context, instance)
        check_state(instance, 'delete metadata', METADATA_VM_STATES)
        metadata = dict(instance.metadata or {})
        if key not in metadata:
            raise exception.MetadataItemNotFound(key=key)
        del metadata[key]
        instance.metadata = metadata
        _save_settled(instance, 'delete metadata')


def _check_metadata_quota(context, instance, count):
    _project, user = quota_limits.get_limits(
        context, instance.project_id, instance.user_id, context.quota_class)
    allowed = user['metadata_items']
    if allowed != -1 and count > allowed:
        raise exception.MetadataLimitExceeded(requested=count,
                                              allowed=allowed)


def _save_settled(instance, action):
    """Save, provided no task started meanwhile (409 otherwise)."""
    try:
        instance.save(expected_task_state=[None],
                      expected_vm_state=list(METADATA_VM_STATES))
    except (exception.UnexpectedTaskStateError,
            exception.InstanceInvalidState):
        raise exception.InstanceActionInvalidState(
            action=action, instance_uuid=instance.uuid, attr='task_state',
            state='(changed meanwhile)')
