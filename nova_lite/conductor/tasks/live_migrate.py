"""Live migration: from the request to the source's copy, and its end.

Steps of ``LiveMigrateTask`` (each undone when a later one fails, see
``base.TaskBase``):

1. ``move_records.start_live_move``: the Migration (``accepted``), the
   source allocations handed to it, in one transaction (undo: clear the
   task state);
2. the scheduler chooses and claims a destination for the instance, the
   source excluded, an administrator's named host as
   ``requested_destination`` (still checked by the filters: nothing is
   forced past them, as Nova since 2.68);
3. the destination is asked ``check_can_live_migrate_destination``; one
   that refuses loses its claim and the scheduler is asked again without
   it (as Nova, up to ``[DEFAULT] migrate_max_retries`` retries; a named
   host is not retried) (undo of steps 1-3: ``move_records.abandon_move``:
   the server stays ACTIVE on the source, the migration in ``error``,
   with a fault and an Error event naming why);
4. ``live_migration`` is cast to the source, which runs the rest of the
   protocol (``compute/live_migration.py``).

The API waits for these steps below microversion 2.34 (a call, whose
caller gets the error: 400), as Nova; from 2.34 it does not (a cast).

The source reports the outcome through the same RPC method (``settle``):
once the VM runs on the destination the records move there
(``complete_live_move``: the migration's source allocations freed); when
it stayed on the source they go back (``abandon_move``: the destination's
allocation freed, the migration ``error`` or ``cancelled``).
"""

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.conductor.tasks import base
from nova_lite.conductor.tasks import migrate
from nova_lite.conductor.tasks import move_records as records
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.placement import allocations

LOG = logging.getLogger(__name__)

EVENT = 'conductor_live_migrate_instance'
_T = fields.TaskState
_GONE = (exception.InstanceNotFound, exception.UnexpectedTaskStateError)


class LiveMigrateTask(base.TaskBase):
    """Start a live migration; see the module docstring."""

    def __init__(self, context, instance, scheduler_api, compute_api,
                 host=None, block_migration=None):
        super().__init__(context, instance)
        self.host = host
        self.block_migration = block_migration
        self.migration = None
        self.scheduler_api = scheduler_api
        self.compute_api = compute_api
        self.refused = []   # (host, reason) of destinations that refused
        self.error = None   # why it failed, once rolled back

    def _execute(self):
        self.event_start(EVENT)
        self.on_failure(self._clear_task)
        self.migration = records.start_live_move(self.context, self.instance,
                                                 self.host)
        # From here the records say "moving": undo them as one.
        self._undo = [self._abandon]
        saved = objects.RequestSpec.get_by_instance_uuid(self.context,
                                                         self.instance.uuid)
        migrate_data = self._find_destination(saved)
        LOG.info('Live-migrating instance %s from %s to %s (%s)',
                 self.instance.uuid, self.migration.source_compute,
                 self.migration.dest_compute, self.migration.dest_node)
        self.compute_api.live_migration(self.context, self.instance,
                                        self.migration, migrate_data)
        self.event_finish(EVENT)

    def _find_destination(self, saved):
        """Schedule, then ask the destination; again without each one
        that refuses. Returns the migrate data of the one that
        accepted."""
        while True:
            self._check_retries()
            spec = migrate.scheduling_spec(
                self.context, saved, self.instance, self.instance.flavor,
                self.host, [self.instance.host] + [h for h, _r in
                                                   self.refused])
            selection = self._select(spec)
            records.record_destination(self.context, self.migration,
                                       selection, None, None)
            try:
                return self.compute_api.check_can_live_migrate_destination(
                    self.context, self.instance, self.migration,
                    self.block_migration)
            except Exception as exc:
                error = exc
            reason = base._message(error)
            LOG.info('Destination %s refused the live migration of %s: %s',
                     selection.service_host, self.instance.uuid, reason)
            self.refused.append((selection.service_host, reason))
            self._release_destination()
            if self.host:
                if isinstance(error, exception.MigrationPreCheckError):
                    raise error
                raise exception.MigrationPreCheckError(reason=reason)

    def _select(self, spec):
        try:
            return self.scheduler_api.select_destinations(
                self.context, spec, [self.instance.uuid],
                return_alternates=False)[0][0]
        except messaging.MessagingTimeout:
            # It may have claimed: the undo removes the instance's
            # allocations whatever they are.
            raise exception.NoValidHost(
                reason='the scheduler did not answer in time')
        except exception.NoValidHost as exc:
            if not self.refused:
                raise
            raise exception.NoValidHost(reason='%s %s' % (
                exc.kwargs.get('reason', ''), self._refusals()))

    def _check_retries(self):
        limit = CONF.migrate_max_retries
        if limit == -1 or len(self.refused) <= limit:
            return
        raise exception.MaxRetriesExceeded(reason=(
            'Exceeded max scheduling retries %d for instance %s during '
            'live migration. %s' % (limit, self.instance.uuid,
                                    self._refusals())))

    def _refusals(self):
        return 'Destinations that refused: %s.' % '; '.join(
            '%s: %s' % pair for pair in self.refused)

    def _release_destination(self):
        allocations.remove(self.context, self.instance.uuid)

    # Undos and the failure record

    def _clear_task(self):
        self.instance.task_state = None
        try:
            self.instance.save(expected_task_state=[_T.MIGRATING])
        except _GONE:
            pass

    def _abandon(self):
        try:
            records.abandon_move(
                self.context, self.instance, self.migration, None,
                task_state=_T.MIGRATING)
        except _GONE:
            LOG.info('Instance %s was deleted during its live migration',
                     self.instance.uuid)
            return

    def rollback(self, error):
        self.error = error
        self.record_fault(error)
        self.event_finish(EVENT, error)


def settle(context, instance, migration, failure):
    """The source's report: ``failure`` None once the VM runs on the
    destination (the records move there), else {'status', 'reason'}
    (the records go back to the source). Returns True if written."""
    try:
        if failure is None:
            records.complete_live_move(context, instance,
                                                  migration)
        else:
            records.abandon_move(
                context, instance, migration, None, task_state=_T.MIGRATING,
                status=failure.get('status') or records.ERROR)
    except _GONE as exc:
        LOG.info('Live migration %s of instance %s not settled: %s',
                 migration.uuid, instance.uuid, base._message(exc))
        return False
    if failure is None:
        LOG.info('Live migration %s of instance %s completed on %s',
                 migration.uuid, instance.uuid, migration.dest_compute)
    else:
        LOG.info('Live migration %s of instance %s %s: %s; the server '
                 'stays on %s', migration.uuid, instance.uuid,
                 failure.get('status'), failure.get('reason'),
                 migration.source_compute)
    return True
