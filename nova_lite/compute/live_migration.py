"""Live migration on the computes, in Nova's order.

The conductor chose and claimed the destination and asked it
``check_can_live_migrate_destination`` (``conductor/tasks/
live_migrate.py``); then:

* ``live_migration`` (source): migration ``queued``, ``preparing``,
  ``pre_live_migration`` on the destination (call), ``running``, the
  driver copies the running VM (abortable, or forced to end), then
  ``post-migrating`` and ``post_live_migration_at_destination`` is cast.
  An abort that arrives while it is ``queued`` or ``preparing`` (Nova's
  2.65) is kept and honoured before the copy starts: the destination
  drops what it prepared and the migration ends ``cancelled``;
* ``post_live_migration_at_destination`` (destination): the VM runs
  here; the conductor settles the records (the instance's host and node,
  the source allocation freed, migration ``completed``).

Until the driver let go of the VM on the source every failure leaves it
running there: the destination drops what it prepared
(``rollback_live_migration_at_destination``) and the conductor puts the
records back (migration ``error``, or ``cancelled`` for an abort; the
server ACTIVE on the source with an event saying why). A failure after
that (taking the VM over on the destination) puts the server in ERROR,
as Nova does, with a fault.
"""

import threading

from oslo_log import log as logging

from nova_lite.compute import power
from nova_lite import exception
from nova_lite.objects import fields

LOG = logging.getLogger(__name__)

_T = fields.TaskState
_GONE = (exception.InstanceNotFound, exception.UnexpectedTaskStateError,
         exception.MigrationNotFound)


class LiveMigration:
    """The live migration steps of one compute; the manager routes RPC
    here (under the instance's lock, except abort and force_complete,
    which must reach a migration that holds it)."""

    def __init__(self, host, driver, tracker, compute_api_factory,
                 conductor_api_factory):
        self.host = host
        self.driver = driver
        self.rt = tracker
        self._compute_api = compute_api_factory
        self._conductor_api = conductor_api_factory
        # migration uuid -> True once an abort asked to cancel it, for
        # the migrations not yet copying (queued or preparing).
        self._not_started = {}
        self._not_started_lock = threading.Lock()

    # Destination

    def check_can_live_migrate_destination(self, context, instance,
                                           migration, block_migration):
        """Returns the migrate data; MigrationPreCheckError if this host
        cannot take the VM."""
        event = 'compute_check_can_live_migrate_destination'
        power.event_start(context, instance, event, self.host)
        try:
            data = self.driver.check_can_live_migrate_destination(
                context, instance, migration.dest_node, block_migration)
        except Exception as exc:
            power.event_finish(context, instance, event, exc)
            raise exception.MigrationPreCheckError(reason=power.message(exc))
        power.event_finish(context, instance, event)
        return data

    def pre_live_migration(self, context, instance, migration,
                           migrate_data):
        event = 'compute_pre_live_migration'
        power.event_start(context, instance, event, self.host)
        try:
            self.driver.pre_live_migration(context, instance,
                                           migration.dest_node, migrate_data)
        except Exception as exc:
            power.event_finish(context, instance, event, exc)
            raise exception.MigrationPreCheckError(reason=power.message(exc))
        power.event_finish(context, instance, event)

    def post_live_migration_at_destination(self, context, instance,
                                           migration):
        event = 'compute_post_live_migration_at_destination'
        power.event_start(context, instance, event, self.host)
        try:
            self.driver.post_live_migration_at_destination(
                context, instance, migration.dest_node)
        except Exception as exc:
            self._failed(context, instance, migration, event, exc)
            return False
        power.event_finish(context, instance, event)
        # The conductor writes the records (one transaction with the
        # source's allocation); count the VM here meanwhile.
        instance.host = self.host
        instance.node = migration.dest_node
        self.rt.track_instance(instance)
        self._conductor_api().live_migrate_instance(
            context, instance, migration=migration)
        LOG.info('Instance %s live-migrated to %s (%s)', instance.uuid,
                 self.host, migration.dest_node)
        return True

    def rollback_live_migration_at_destination(self, context, instance,
                                               migration):
        event = 'compute_rollback_live_migration_at_destination'
        power.event_start(context, instance, event, self.host)
        try:
            self.driver.rollback_live_migration_at_destination(
                context, instance, migration.dest_node)
        except Exception as exc:
            # The records are back on the source; only a leftover here.
            LOG.warning('Cleaning up the incoming live migration of %s '
                        'failed: %s', instance.uuid, power.message(exc))
            power.event_finish(context, instance, event, exc)
            return False
        power.event_finish(context, instance, event)
        return True

    # Source

    def live_migration(self, context, instance, migration, migrate_data):
        event = 'compute_live_migration'
        power.event_start(context, instance, event, self.host)
        with self._not_started_lock:
            self._not_started[migration.uuid] = False
        try:
            self._set_status(migration, 'queued')
            self._set_status(migration, 'preparing')
            self._compute_api().pre_live_migration(
                context, instance, migration, migrate_data)
        except _GONE as exc:
            self._started(migration)
            power.event_finish(context, instance, event, exc)
            return False
        except Exception as exc:
            self._started(migration)
            return self._rollback(context, instance, migration, event, exc)
        if self._started(migration):
            return self._rollback(
                context, instance, migration, event,
                exception.LiveMigrationAborted(instance_uuid=instance.uuid),
                status='cancelled')
        try:
            self._set_status(migration, 'running')
            self.driver.live_migration(context, instance,
                                       migration.dest_compute, migrate_data)
        except exception.LiveMigrationAborted as exc:
            return self._rollback(context, instance, migration, event, exc,
                                  status='cancelled')
        except Exception as exc:
            return self._rollback(context, instance, migration, event, exc)
        # The VM runs on the destination now.
        self.rt.free_instance(instance)
        try:
            self._set_status(migration, 'post-migrating')
        except _GONE as exc:
            power.event_finish(context, instance, event, exc)
            return False
        power.event_finish(context, instance, event)
        self._compute_api().post_live_migration_at_destination(
            context, instance, migration)
        return True

    def live_migration_abort(self, context, instance, migration):
        """Cancel a queued or preparing live migration before its copy
        starts, or stop a running copy through the driver."""
        with self._not_started_lock:
            queued = migration.uuid in self._not_started
            if queued:
                self._not_started[migration.uuid] = True
        if queued:
            event = 'compute_live_migration_abort'
            power.event_start(context, instance, event, self.host)
            LOG.info('Live migration %s of %s will be cancelled before '
                     'its copy starts', migration.uuid, instance.uuid)
            power.event_finish(context, instance, event)
            return
        self._signal(context, instance, migration, 'abort',
                     self.driver.live_migration_abort)

    def _started(self, migration):
        """Forget that ``migration`` has not started copying; True if an
        abort asked to cancel it meanwhile."""
        with self._not_started_lock:
            return self._not_started.pop(migration.uuid, False)

    def live_migration_force_complete(self, context, instance, migration):
        self._signal(context, instance, migration, 'force_complete',
                     self.driver.live_migration_force_complete)

    # Helpers

    def _signal(self, context, instance, migration, what, method):
        event = 'compute_live_migration_%s' % what
        power.event_start(context, instance, event, self.host)
        try:
            method(instance)
        except Exception as exc:
            # Finished (or failed) meanwhile: its own outcome stands.
            LOG.warning('Cannot %s the live migration %s of %s: %s', what,
                        migration.uuid, instance.uuid, power.message(exc))
            power.event_finish(context, instance, event, exc)
            return
        power.event_finish(context, instance, event)

    @staticmethod
    def _set_status(migration, status):
        migration.status = status
        migration.save()

    def _rollback(self, context, instance, migration, event, error,
                  status='error'):
        """The VM still runs here: the destination drops what it
        prepared, the conductor puts the records back."""
        LOG.warning('Live migration of %s to %s failed: %s', instance.uuid,
                    migration.dest_compute, power.message(error))
        power.event_finish(context, instance, event, error)
        self._compute_api().rollback_live_migration_at_destination(
            context, instance, migration)
        self._conductor_api().live_migrate_instance(
            context, instance, migration=migration,
            failure={'status': status, 'reason': power.message(error)})
        return False

    def _failed(self, context, instance, migration, event, error):
        LOG.error('%s of instance %s failed: %s', event, instance.uuid,
                  power.message(error))
        power.record_fault(context, self.host, instance, error)
        power.event_finish(context, instance, event, error)
        instance.vm_state = fields.VMState.ERROR
        instance.task_state = None
        migration.status = 'error'
        try:
            instance.save()
            migration.save()
        except _GONE:
            pass

