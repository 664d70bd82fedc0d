"""How a resize or cold migration ends: confirm or revert, and the
``resize_confirm_window`` auto-confirm.

Both change the records first, in one transaction each
(``move_records.confirm_move`` / ``revert_move``), then cast the computes
to tidy up the VMs: confirm tells the source to remove what is left
there (and, when the confirm comes from a delete, the destination to
delete the server); revert tells the destination to remove the new VM,
which then tells the source to start the old one again. If the records
cannot be changed (the server moved on meanwhile), the migration goes
back to ``finished`` and nothing else changes.
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


class RevertTask(_OutcomeTask):
    """Bring the server back to the source with its old flavor; free the
    destination."""
    EVENT = 'conductor_revert_resize'

    def _records(self):
        try:
            spec = objects.RequestSpec.get_by_instance_uuid(
                self.context, self.instance.uuid)
        except exception.RequestSpecNotFound:
            spec = None
        return records.revert_move(self.context, self.instance,
                                   self.migration, spec)

    def _cast(self):
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
