"""What a compute does at start about what its last run left behind.

The VMs of instances deleted while it was away are destroyed
(``reap_deleted``), and so are the copies it kept as the source of a
move of an instance deleted since (``reap_moved_away``); the server
actions it was performing are performed again (``resume_actions``), all
at the end of this module.
And the builds:

A compute acknowledges a build when the message arrives, so a compute
that is killed loses the builds it was running, and nothing else would
notice until ``[conductor] build_timeout`` (ten minutes by default). At
start, before it consumes anything, the compute reconciles every instance
of this host still building (``vm_state`` building, ``task_state``
spawning or scheduling, ``host`` this one: only this compute's build sets
the host) with what the driver has:

* no VM: the build is handed back to the conductor as a failed one with
  no alternates left, with a fault saying the compute restarted; the
  conductor puts it in ERROR with that fault and releases its allocations
  and quota (Nova, too, puts such builds in ERROR at start-up). A build
  cannot be rescheduled from here: the alternates it carried were in the
  lost message;
* a running VM: the build got as far as its VM and only the ACTIVE save
  was lost; it is saved ACTIVE now, conditionally on it still spawning;
* a VM that is not running: it is destroyed, then handed back as above.

Only a VM the driver reports running is ever saved ACTIVE, so no ACTIVE
server is left whose VM is gone. An instance deleted meanwhile is left to
its delete (its VM, if any, is destroyed).

Builds cast to this host that never reached ``spawning`` have no host
yet and may still be queued on the bus for this compute: they are not
touched here (a cast this compute never acknowledged is cast again by a
conductor, see conductor/tasks/lost_casts.py).

    recovery.reconcile_builds(context, host, driver, conductor_api)
    recovery.reap_deleted(context, host, driver)
    recovery.reap_moved_away(context, host, driver)
    recovery.resume_actions(context, host, driver)
    recovery.settle_moves(context, host, conductor_api)
    recovery.reap_failed_moves(context, host, driver)
"""

import copy

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.compute import power
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields

LOG = logging.getLogger(__name__)

IN_FLIGHT = (fields.TaskState.SPAWNING, fields.TaskState.SCHEDULING)
_GONE = (exception.InstanceNotFound, exception.UnexpectedTaskStateError,
         exception.InstanceInvalidState)


def reconcile_builds(context, host, driver, conductor_api):
    """Reconcile this host's unfinished builds with ``driver``.

    Never raises: a failure is logged and leaves that instance to the
    conductor's build timeout. Returns {instance uuid: what was done}
    ('finished', 'handed back', 'deleted').
    """
    instances = _instances_of(context, host, 'builds', 'build timeout')
    done = {}
    for instance in instances:
        if (instance.vm_state != fields.VMState.BUILDING or
                instance.task_state not in IN_FLIGHT):
            continue
        try:
            done[instance.uuid] = _reconcile(context, host, driver,
                                             conductor_api, instance)
        except Exception:
            LOG.exception('Reconciling the interrupted build of instance %s '
                          'failed', instance.uuid)
    if done:
        LOG.warning('Builds interrupted by the last stop of %s: %s', host,
                    ', '.join('%s %s' % kv for kv in sorted(done.items())))
    return done


def _instances_of(context, host, what, timeout):
    """The instances of ``host``; none (logged) when they cannot be read:
    the ``what`` the last stop interrupted are then left to the
    conductor's ``timeout``."""
    try:
        return objects.InstanceList.get_by_host(context, host)
    except Exception:
        LOG.exception('Cannot list the instances of host %s: %s '
                      'interrupted by the last stop are left to the '
                      "conductor's %s", host, what, timeout)
        return []


def _power_state(driver, instance):
    try:
        return driver.get_info(instance)
    except exception.InstanceNotFound:
        return None


def _reconcile(context, host, driver, conductor_api, instance):
    power = _power_state(driver, instance)
    if power == fields.PowerState.RUNNING:
        if _save_active(instance):
            LOG.info('Instance %s was built before the restart: saved '
                     'ACTIVE', instance.uuid)
            return 'finished'
        _destroy(context, driver, instance)
        return 'deleted'
    if power is not None:
        _destroy(context, driver, instance)
    return _hand_back(context, host, conductor_api, instance, power)


def _save_active(instance):
    """Save the build ACTIVE; False if it was deleted (or changed)."""
    instance.vm_state = fields.VMState.ACTIVE
    instance.task_state = None
    instance.power_state = fields.PowerState.RUNNING
    instance.launched_at = timeutils.utcnow()
    try:
        instance.save(expected_task_state=fields.TaskState.SPAWNING)
    except _GONE:
        return False
    return True


def _destroy(context, driver, instance):
    try:
        driver.destroy(context, instance)
    except Exception:
        LOG.exception('Destroying the VM of instance %s failed',
                      instance.uuid)


def _hand_back(context, host, conductor_api, instance, power):
    """Record why, clear the host and give the build back to the
    conductor with no alternates: it ends in ERROR with a fault."""
    reason = ('the compute service restarted during the build and %s' % (
        'its VM is gone' if power is None else
        'its VM was not running (power state %s): destroyed' % power))
    error = exception.BuildFailedOnHost(
        instance_uuid=instance.uuid, host=host, node=instance.node,
        reason=reason)
    try:
        objects.InstanceFault.from_exception(
            context, instance.uuid, error, host=host,
            details=reason).create()
    except Exception:
        LOG.exception('Recording the fault of instance %s failed',
                      instance.uuid)
    instance.host = None
    instance.node = None
    instance.compute_node_uuid = None
    instance.task_state = fields.TaskState.SCHEDULING
    try:
        instance.save(expected_task_state=list(IN_FLIGHT))
    except _GONE:
        return 'deleted'
    LOG.warning('Instance %s: %s; handing it back to the conductor',
                instance.uuid, reason)
    conductor_api.build_instances(context, [instance], None,
                                  host_lists=[[]])
    return 'handed back'


def reap_deleted(context, host, driver):
    """Destroy the VMs of instances deleted while this compute was away.

    A server whose compute is down is deleted without it (the API or a
    conductor removes its records), so its VM outlives it here. At start,
    every VM whose instance is deleted, or unknown, is destroyed, as
    Nova's running-deleted reaper does. A VM of a live instance recorded
    on another host is left alone (a move in flight; an evacuation has its
    own clean-up). Never raises; returns the uuids destroyed.
    """
    try:
        strays = set(driver.list_instance_uuids()) - {
            inst.uuid for inst in objects.InstanceList.get_by_host(
                context, host)}
        if not strays:
            return []
        known = _read_with_deleted(context, strays)
    except Exception:
        LOG.exception('Cannot list the VMs of deleted instances on %s: '
                      'they are left running', host)
        return []
    reaped = []
    for uuid, instance in _deleted_among(known, strays):
        LOG.warning('Instance %s was deleted while %s was away; destroying '
                    'its VM', uuid, host)
        _destroy(context, driver, instance or objects.Instance(
            context, uuid=uuid))
        reaped.append(uuid)
    return reaped


def _read_with_deleted(context, uuids):
    with_deleted = copy.copy(context)
    with_deleted.read_deleted = 'yes'
    return {inst.uuid: inst for inst in objects.InstanceList.get_by_filters(
        with_deleted, {'uuid': sorted(uuids)})}


def _deleted_among(known, uuids):
    """(uuid, instance or None) of each of ``uuids`` whose instance is
    deleted or unknown, in order; ``known``: ``_read_with_deleted``."""
    for uuid in sorted(uuids):
        instance = known.get(uuid)
        if instance is None or instance.deleted:
            yield uuid, instance


def reap_moved_away(context, host, driver):
    """Remove the source copies this host keeps of moves whose instance
    was deleted while it was away (or while it was up, but the message
    telling it was lost): a server deleted in VERIFY_RESIZE with its
    destination down is deleted without either compute, and the copy
    kept here for a revert outlives it (Nova's clean-up of incomplete
    migrations, at start). Copies of live instances wait for their
    confirm or revert. Never raises; returns the uuids removed."""
    try:
        copies = driver.list_moved_away_uuids()
        if not copies:
            return []
        known = _read_with_deleted(context, copies)
    except Exception:
        LOG.exception('Cannot list the moved-away copies on %s: they are '
                      'left in place', host)
        return []
    removed = []
    for uuid, instance in _deleted_among(known, copies):
        LOG.warning('Instance %s was deleted in the middle of its move '
                    'from %s; removing the copy kept here', uuid, host)
        try:
            driver.confirm_migration(context, instance or objects.Instance(
                context, uuid=uuid), None)
        except Exception:
            LOG.exception('Removing the moved-away copy of %s failed', uuid)
            continue
        removed.append(uuid)
    return removed


def resume_actions(context, host, driver):
    """Perform again the server actions (reboot, stop, start, pause, ...)
    that this host's last run took and did not finish: their cast was
    acknowledged as it arrived, so it is lost, and the server would stay
    in the action's task until ``[conductor] task_timeout``. As Nova's
    compute does at start-up, each is performed again (the driver's
    actions bring a VM to a state, so doing one twice is harmless) and
    its outcome saved, conditional on the task as usual. Never raises;
    returns {uuid: method}.
    """
    instances = _instances_of(context, host, 'actions', 'task timeout')
    resumed = {}
    for instance in instances:
        method = _ACTION_OF_TASK.get(instance.task_state)
        if method is None:
            continue
        kwargs = ({'reboot_type': 'HARD' if instance.task_state ==
                   fields.TaskState.REBOOTING_HARD else 'SOFT'}
                  if method == 'reboot_instance' else {})
        LOG.warning('Instance %s was %s when %s stopped; doing it again',
                    instance.uuid, instance.task_state, host)
        try:
            power.run(context, driver, host, instance, method, **kwargs)
        except Exception:
            LOG.exception('Resuming %s of instance %s failed', method,
                          instance.uuid)
            continue
        resumed[instance.uuid] = method
    return resumed


_ACTION_OF_TASK = {task: action.method for action in power.ACTIONS.values()
                   for task in action.task_states if task is not None}


def settle_moves(context, host, conductor_api):
    """Tell the conductors this compute restarted: the moves whose
    current step it was working on are lost with its last run, and are
    settled now (undone, or ERROR once a VM was touched) rather than
    after ``[conductor] task_timeout``. Before this compute consumes: a
    step still queued for it finds its move settled and does nothing.
    Never raises."""
    try:
        settled = conductor_api.settle_moves(context, host)
    except Exception:
        LOG.exception('Could not have the moves of %s settled; they wait '
                      'for [conductor] task_timeout', host)
        return
    if settled:
        LOG.warning('Moves lost with the last run of %s settled: %s', host,
                    ', '.join(settled))


def reap_failed_moves(context, host, driver):
    """Destroy the VMs here of servers whose move to this host failed
    while their record names another host: a finish lost with this
    compute and settled on the source by a conductor (at this start or
    while this compute was down) leaves the VM it made here, and no VM
    may run where no server is recorded. Runs after ``settle_moves``;
    a server still in a task state is left to its move. Never raises;
    returns the uuids destroyed."""
    try:
        strays = set(driver.list_instance_uuids()) - {
            inst.uuid for inst in objects.InstanceList.get_by_host(
                context, host)}
        if not strays:
            return []
        failed = {migration.instance_uuid for migration in
                  objects.MigrationList.get_by_filters(context, {
                      'instance_uuid': sorted(strays),
                      'dest_compute': host, 'status': 'error'})}
        if not failed:
            return []
        instances = objects.InstanceList.get_by_filters(
            context, {'uuid': sorted(failed)})
    except Exception:
        LOG.exception('Cannot read the failed moves to %s: their VMs here '
                      'are left in place', host)
        return []
    reaped = []
    for instance in instances:
        if instance.host == host or instance.task_state is not None:
            continue
        LOG.warning('Instance %s is recorded on %s after its move here '
                    'failed; destroying its VM on %s', instance.uuid,
                    instance.host, host)
        _destroy(context, driver, instance)
        reaped.append(instance.uuid)
    return reaped
