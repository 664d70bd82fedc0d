"""The compute API for resize and cold migration, API side.

Each call checks what Nova checks, in Nova's order (lock, the services'
RPC pins, the server's state, then the request's arguments), writes the
task state conditionally and records the instance action, then casts the
workflow to the conductor (``conductor/tasks/migrate.py`` and
``resize_outcome.py``). A resize to a larger flavor reserves the
difference in cores and ram first (403 over quota); the conductor
commits it when the move starts.
"""

import dataclasses

from nova_lite.compute import action_api
from nova_lite.compute import rpc_clients
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.quota import reservations as quota_reservations

_T = fields.TaskState
_V = fields.VMState

# Nova's instance action names.
RESIZE, MIGRATE = 'resize', 'migrate'
CONFIRM_RESIZE, REVERT_RESIZE = 'confirmResize', 'revertResize'
# Where a resize or migration may start from.
MOVABLE_VM_STATES = (_V.ACTIVE, _V.STOPPED)
COMPUTE_BINARY = 'nova-lite-compute'


def upsize_deltas(old, new):
    """{resource: amount} to reserve for a move from flavor ``old`` to
    ``new`` (nothing unless it is larger in cores or ram)."""
    deltas = {'cores': new.vcpus - old.vcpus,
              'ram': new.memory_mb - old.memory_mb}
    return {r: amount for r, amount in deltas.items() if amount > 0}


class MoveAPI(rpc_clients.RPCClients):
    """Resize, migrate, confirm and revert for the API handlers; RPC
    clients made on first use, so tests can replace them."""

    def _check(self, context, instance, action, vm_states, task_states=(
            None,)):
        """Lock, pins, host and state, each a 409."""
        action_api.check_lock(context, instance)
        if not (self.compute_rpcapi.can_send_moves()
                and self.conductor_rpcapi.can_send_moves()):
            raise exception.ComputeTooOldForAction(
                action=action, instance_uuid=instance.uuid,
                version=compute_rpcapi.MOVES_VERSION)
        if not instance.host:
            raise exception.InstanceActionInvalidState(
                action=action, instance_uuid=instance.uuid, attr='vm_state',
                state=instance.vm_state)
        action_api.check_state(instance, action, vm_states, task_states)

    def resize(self, context, instance, flavor_id):
        """Start a resize to flavor ``flavor_id``. 400 for an unknown or
        the same flavor or a smaller root disk; 403 over quota."""
        self._check(context, instance, RESIZE, MOVABLE_VM_STATES)
        flavor = _flavor(context, flavor_id)
        current = instance.flavor
        if flavor.flavorid == current.flavorid:
            raise exception.CannotResizeToSameFlavor()
        if flavor.root_gb < current.root_gb:
            raise exception.CannotResizeDisk(
                reason='flavor %s has a smaller root disk (%d GiB) than '
                       'the server (%d GiB)' % (flavor.flavorid,
                                               flavor.root_gb,
                                               current.root_gb))
        reservation = None
        deltas = upsize_deltas(current, flavor)
        if deltas:
            reservation = quota_reservations.reserve(
                context, instance.project_id, instance.user_id, deltas,
                quota_class=context.quota_class)
        try:
            action_api.start_task(instance, RESIZE, MOVABLE_VM_STATES,
                                  _T.RESIZE_PREP)
        except Exception:
            if reservation is not None:
                quota_reservations.rollback(context, reservation.uuid)
            raise
        action_api.record_action(context, instance, RESIZE)
        self.conductor_rpcapi.migrate_server(
            context, instance, flavor,
            reservation=(dataclasses.asdict(reservation)
                         if reservation is not None else None))

    def migrate(self, context, instance, host=None):
        """Start a cold migration, to ``host`` if given (checked by the
        scheduler's filters). 400 for an unknown host or the server's
        own."""
        self._check(context, instance, MIGRATE, MOVABLE_VM_STATES)
        if host is not None:
            if host == instance.host:
                raise exception.CannotMigrateToSameHost(host=host)
            _check_compute_host(context, host)
        action_api.start_task(instance, MIGRATE, MOVABLE_VM_STATES,
                              _T.RESIZE_PREP)
        action_api.record_action(context, instance, MIGRATE)
        self.conductor_rpcapi.migrate_server(context, instance,
                                             instance.flavor, host=host)

    def confirm_resize(self, context, instance):
        """Confirm a move in VERIFY_RESIZE (409 otherwise)."""
        self._check(context, instance, CONFIRM_RESIZE, (_V.RESIZED,))
        migration = _finished_migration(context, instance)
        migration.status = 'confirming'
        migration.save()
        action_api.record_action(context, instance, CONFIRM_RESIZE)
        self.conductor_rpcapi.confirm_resize(context, instance, migration)

    def revert_resize(self, context, instance):
        """Revert a move in VERIFY_RESIZE (409 otherwise)."""
        self._check(context, instance, REVERT_RESIZE, (_V.RESIZED,))
        migration = _finished_migration(context, instance)
        action_api.start_task(instance, REVERT_RESIZE, (_V.RESIZED,),
                              _T.RESIZE_REVERTING)
        migration.status = 'reverting'
        migration.save()
        action_api.record_action(context, instance, REVERT_RESIZE)
        self.conductor_rpcapi.revert_resize(context, instance, migration)


def _flavor(context, flavor_id):
    try:
        return objects.Flavor.get_by_flavor_id(context, flavor_id)
    except exception.FlavorNotFound:
        raise exception.InvalidInput(
            reason='Unable to find flavor %s' % flavor_id)


def _check_compute_host(context, host):
    try:
        objects.Service.get_by_host_and_binary(context, host,
                                               COMPUTE_BINARY)
    except (exception.ServiceNotFound, exception.HostBinaryNotFound):
        raise exception.InvalidInput(
            reason=exception.ComputeHostNotFound(host=host).format_message())


def _finished_migration(context, instance):
    try:
        return objects.Migration.get_by_instance_and_status(
            context, instance.uuid, 'finished')
    except exception.MigrationNotFound:
        raise exception.InstanceNotResized(instance_uuid=instance.uuid)
