"""How a resize or cold migration ends: confirm or revert, and the
``resize_confirm_window`` auto-confirm.

A confirm changes the records first, in one transaction
(``move_records.confirm_move``), then tells the source to remove what is
left there (and, when the confirm comes from a delete, the destination
to delete the server). If the records cannot be changed (the server
moved on meanwhile), the migration goes back to ``finished`` and nothing
else changes.

A revert goes in Nova's order, so that the destination stays held until
the VM there is gone (the scheduler must never place another server on
what it still uses): ``RevertTask`` asks the destination to destroy its
VM (compute RPC 1.10, ``conductor_finishes``); the destination then
hands the revert back (``finish_revert_resize``, conductor RPC 1.9) and
``FinishRevertTask`` changes the records in one transaction
(``move_records.revert_move``: the destination's allocations go, the
source's return to the instance with its old flavor) and asks the
source to start the VM again. A destination that cannot destroy its VM
puts the server in ERROR with a fault (compute/moves.py); one that is
down leaves it in ``resize_reverting`` for the move timeouts, which put
it in ERROR with a fault naming that compute (move_timeouts.py); records
that cannot be changed once the VM is gone, or a source that cannot be
asked, put it in ERROR with a fault here. With the computes pinned below
compute RPC 1.10 the records change first and the destination casts to
the source itself, as before.
"""

import datetime

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.conductor.tasks import base
from nova_lite.conductor.tasks import move_records as records
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields

LOG = logging.getLogger(__name__)


class _OutcomeTask(base.TaskBase):
    EVENT = None

    def __init__(self, context, instance, migration, scheduler_api,
                 compute_api):
        super().__init__(context, instance)
        self.migration = migration
        self.scheduler_api = scheduler_api
        self.compute_api = compute_api

    def _execute(self):
        self.event_start(self.EVENT)
        self._records()
        self._cast()
        self.event_finish(self.EVENT)

    def rollback(self, error):
        # Back to waiting for a decision, unless another request settled
        # the move meanwhile (then its status stands).
        try:
            current = objects.Migration.get_by_id(self.context,
                                                  self.migration.id)
            if current.status in (records.CONFIRMING, records.REVERTING):
                current.status = records.FINISHED
                current.save()
        except exception.MigrationNotFound:
            pass
        self.event_finish(self.EVENT, error)


class ConfirmTask(_OutcomeTask):
    """Keep the server on the destination; free the source."""
    EVENT = 'conductor_confirm_resize'

    def _records(self):
        return records.confirm_move(self.context, self.instance,
                                    self.migration)

    def _cast(self):
        self.compute_api.confirm_resize(self.context, self.instance,
                                        self.migration)
        self._delete_if_asked()

    def rollback(self, error):
        super().rollback(error)
        # A delete waits for no confirm: it goes on even if this failed.
        self._delete_if_asked()

    def _delete_if_asked(self):
        # A delete of a server in VERIFY_RESIZE confirms first (the API
        # leaves the delete to this task, so the source is freed before
        # the record goes).
        if self.instance.task_state == fields.TaskState.DELETING:
            self.compute_api.terminate_instance(self.context, self.instance)


def _revert_records(context, instance, migration):
    try:
        spec = objects.RequestSpec.get_by_instance_uuid(context,
                                                        instance.uuid)
    except exception.RequestSpecNotFound:
        spec = None
    return records.revert_move(context, instance, migration, spec)


class RevertTask(_OutcomeTask):
    """Bring the server back to the source with its old flavor; free the
    destination once its VM is gone (``FinishRevertTask``)."""
    EVENT = 'conductor_revert_resize'

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.dest_first = self.compute_api.can_send_revert_dest_first()

    def _records(self):
        if self.dest_first:
            return None
        # Computes pinned below 1.10: the records change first.
        return _revert_records(self.context, self.instance, self.migration)

    def _cast(self):
        if self.dest_first:
            self.compute_api.revert_resize(self.context, self.instance,
                                           self.migration,
                                           conductor_finishes=True)
            return
        self.compute_api.revert_resize(self.context, self.instance,
                                       self.migration)

    def rollback(self, error):
        super().rollback(error)
        self.instance.task_state = None
        try:
            self.instance.save(
                expected_task_state=[fields.TaskState.RESIZE_REVERTING])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError):
            pass


class FinishRevertTask(base.TaskBase):
    """The destination's VM is gone: the records go back to the source
    (its allocations, the old flavor), then the source starts the VM.
    Any failure but the server having moved on (deleted, reset) puts it
    in ERROR with a fault and the migration in ``error``: the VM is gone
    from the destination, so there is nothing to go back to."""
    EVENT = 'conductor_finish_revert_resize'

    def __init__(self, context, instance, migration, compute_api):
        super().__init__(context, instance)
        self.migration = migration
        self.compute_api = compute_api

    def _execute(self):
        self.event_start(self.EVENT)
        _revert_records(self.context, self.instance, self.migration)
        self.compute_api.finish_revert_resize(self.context, self.instance,
                                              self.migration)
        self.event_finish(self.EVENT)

    def rollback(self, error):
        self.event_finish(self.EVENT, error)
        if isinstance(error, _MOVED_ON):
            LOG.info('The revert of instance %s stops: %s',
                     self.instance.uuid, base._message(error))
            return
        # Only these two: a transaction that failed may have left the
        # object holding the source's values it did not commit.
        self.instance.obj_reset_changes()
        self.instance.vm_state = fields.VMState.ERROR
        self.instance.task_state = None
        try:
            self.instance.save(
                expected_task_state=[fields.TaskState.RESIZE_REVERTING])
        except _MOVED_ON:
            return
        self.record_fault(error)
        self.migration.status = records.ERROR
        try:
            self.migration.save()
        except exception.MigrationNotFound:
            pass


# A server that left resize_reverting meanwhile (deleted, reset by an
# administrator or the move timeouts) is theirs now.
_MOVED_ON = (exception.InstanceNotFound, exception.UnexpectedTaskStateError)


def confirm_expired(context, window, scheduler_api, compute_api):
    """Confirm every move waiting in VERIFY_RESIZE for more than
    ``window`` seconds (0: none). Returns the instance uuids confirmed."""
    if not window:
        return []
    cutoff = (timeutils.utcnow().replace(tzinfo=None)
              - datetime.timedelta(seconds=window))
    confirmed = []
    for migration in objects.MigrationList.get_by_filters(
            context, {'status': records.FINISHED}):
        stamp = migration.updated_at or migration.created_at
        if stamp is not None and stamp.replace(tzinfo=None) > cutoff:
            continue
        try:
            instance = objects.Instance.get_by_uuid(
                context, migration.instance_uuid)
        except exception.InstanceNotFound:
            continue
        if (instance.vm_state != fields.VMState.RESIZED
                or instance.task_state is not None):
            continue
        migration.status = records.CONFIRMING
        migration.save()
        LOG.info('Confirming the move of instance %s: it waited more than '
                 'resize_confirm_window (%d s)', instance.uuid, window)
        ConfirmTask(context, instance, migration, scheduler_api,
                    compute_api).execute()
        confirmed.append(instance.uuid)
    return confirmed
