"""The compute API for live migration, API side.

``live_migrate`` checks what Nova checks, in Nova's order (lock, the
services' RPC pins, the server's state, then the named host), sets
``migrating`` conditionally, records the ``live-migration`` instance
action and casts the workflow to the conductor
(``conductor/tasks/live_migrate.py``). Its outcome shows in the server
(ACTIVE again, on the destination or still on the source), the
migration record and the action's events. Below 2.34 the API waits for
the scheduling and the destination's check, as Nova does, and answers
400 when they fail (the server is already back as it was); from 2.34 it
does not wait.

``force_complete`` and ``abort`` act on a live migration in progress
(``running``), as Nova 2.22 and 2.24 do; from 2.65 ``abort`` also
cancels one still ``queued`` or ``preparing`` (before its copy starts).
"""

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.compute import action_api
from nova_lite.compute import move_api
from nova_lite.compute import rpc_clients
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields

LOG = logging.getLogger(__name__)
_T = fields.TaskState
# What the conductor reports when it waited: the server stays as it was.
_NOT_POSSIBLE = (exception.NoValidHost, exception.MigrationPreCheckError,
                 exception.UnableToMigrateToSelf)
_V = fields.VMState

# Nova's instance action names.
LIVE_MIGRATION = 'live-migration'
FORCE_COMPLETE = 'live_migration_force_complete'
ABORT = 'live_migration_cancel'
LIVE_MIGRATABLE_VM_STATES = (_V.ACTIVE, _V.PAUSED)
# What an abort may stop from 2.65 (only running before).
ABORTABLE_QUEUED = ('queued', 'preparing', 'running')


class LiveMigrateAPI(rpc_clients.RPCClients):
    """Live migrate, force complete and abort for the API handlers; RPC
    clients made on first use, so tests can replace them."""

    def _check_pins(self, instance, action):
        if not (self.compute_rpcapi.can_send_live_migration()
                and self.conductor_rpcapi.can_send_live_migration()):
            raise exception.ComputeTooOldForAction(
                action=action, instance_uuid=instance.uuid,
                version=compute_rpcapi.LIVE_MIGRATION_VERSION)

    def live_migrate(self, context, instance, host=None,
                     block_migration=None, disk_over_commit=None,
                     wait=False):
        """Start a live migration, to ``host`` if given (checked by the
        scheduler's filters). 409 unless ACTIVE or PAUSED with no task;
        400 for an unknown host or the server's own. With ``wait``
        (Nova below 2.34) also 400 when no destination is found or the
        destination refuses (the server stays as it was)."""
        action = 'os-migrateLive'
        action_api.check_lock(context, instance)
        self._check_pins(instance, action)
        if not instance.host:
            raise exception.InstanceActionInvalidState(
                action=action, instance_uuid=instance.uuid, attr='vm_state',
                state=instance.vm_state)
        action_api.check_state(instance, action, LIVE_MIGRATABLE_VM_STATES)
        if host is not None:
            if host == instance.host:
                raise exception.UnableToMigrateToSelf(
                    instance_id=instance.uuid, host=host)
            move_api._check_compute_host(context, host)
        action_api.start_task(instance, action, LIVE_MIGRATABLE_VM_STATES,
                              _T.MIGRATING)
        action_api.record_action(context, instance, LIVE_MIGRATION)
        try:
            self.conductor_rpcapi.live_migrate_instance(
                context, instance, host=host,
                block_migration=block_migration,
                disk_over_commit=disk_over_commit, wait=wait)
        except _NOT_POSSIBLE as exc:
            raise exception.LiveMigrationNotPossible(
                reason=exc.format_message())
        except messaging.MessagingTimeout:
            # Still under way in the conductor; its outcome will show in
            # the migration and the action's events, as from 2.34.
            LOG.warning('The conductor did not answer in time for the '
                        'live migration of %s; not waiting',
                        instance.uuid)

    def force_complete(self, context, instance, migration_id):
        """Make a running live migration finish now. 409 unless the
        server is ACTIVE and migrating; 400 for a migration that is not
        the server's or not running."""
        action = 'force_complete'
        action_api.check_lock(context, instance)
        self._check_pins(instance, action)
        action_api.check_state(instance, action, (_V.ACTIVE,),
                               (_T.MIGRATING,))
        migration = self._running(context, instance, migration_id,
                                  'force complete', exception.InvalidInput)
        action_api.record_action(context, instance, FORCE_COMPLETE)
        self.compute_rpcapi.live_migration_force_complete(context, instance,
                                                          migration)

    def abort(self, context, instance, migration_id, queued=False):
        """Abort a running live migration (the server stays on its
        source), or with ``queued`` (2.65) also one still queued or
        preparing. 409 unless migrating; 404 for a migration that is not
        the server's, 400 for one in another status."""
        action = 'abort'
        action_api.check_lock(context, instance)
        self._check_pins(instance, action)
        action_api.check_state(instance, action, None, (_T.MIGRATING,))
        statuses = ABORTABLE_QUEUED if queued else ('running',)
        migration = self._running(context, instance, migration_id,
                                  'abort live migration',
                                  statuses=statuses)
        action_api.record_action(context, instance, ABORT)
        self.compute_rpcapi.live_migration_abort(context, instance,
                                                 migration)

    @staticmethod
    def _running(context, instance, migration_id, method,
                 not_found=None, statuses=('running',)):
        migration = get_for_instance(context, instance, migration_id,
                                     not_found)
        if migration.status not in statuses:
            raise exception.InvalidMigrationState(
                migration_id=migration_id, instance_uuid=instance.uuid,
                state=migration.status, method=method)
        return migration


def get_for_instance(context, instance, migration_id, not_found=None):
    """The migration ``migration_id`` of ``instance``;
    MigrationNotFoundForInstance (404), or ``not_found`` (an exception
    class taking ``reason``) if given, when there is none."""
    migration = None
    if str(migration_id).isdigit():
        try:
            migration = objects.Migration.get_by_id(context,
                                                    int(migration_id))
        except exception.MigrationNotFound:
            migration = None
    if migration is None or migration.instance_uuid != instance.uuid:
        error = exception.MigrationNotFoundForInstance(
            migration_id=migration_id, instance_id=instance.uuid)
        if not_found is not None:
            raise not_found(reason=error.format_message())
        raise error
    return migration
