"""Resize and cold migration on the computes.

The conductor chose and claimed the destination (``conductor/tasks/
migrate.py``); the computes move the VM, in Nova's order:

* ``prep_resize`` (destination): claim the new flavor on the node and
  check the driver can take it; on failure hand the move back to the
  conductor with the alternates left (it tries the next);
* ``resize_instance`` (source): migration ``migrating``, power off and
  send the disk (``migrate_disk_and_power_off``), ``post-migrating``;
* ``finish_resize`` (destination): start the VM with the new flavor; the
  instance now lives here, RESIZED (VERIFY_RESIZE), migration
  ``finished``.

After the conductor settled the records, ``confirm_resize`` (source)
removes the source copy. A revert goes in Nova's order:
``revert_resize`` (destination) destroys the new VM first, while the
instance still holds the destination's allocations (no other server can
be placed on what that VM uses), then hands the revert to the conductor
(``conductor_finishes``, compute RPC 1.10), which gives the source its
allocations and the old flavor back and casts ``finish_revert_resize``
(source) to start the old VM again. Asked by an older conductor (which
changed the records first), the destination casts
``finish_revert_resize`` itself.

A failure after the source let go of the VM puts the instance in ERROR
and the migration in ``error``, with a fault (as Nova does: what the
hypervisors hold is then unknown); the allocations stay for an
administrator to sort out (``os-resetState``, delete).
"""

from oslo_log import log as logging

from nova_lite.compute import power
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields

LOG = logging.getLogger(__name__)

_T = fields.TaskState
_V = fields.VMState
_P = fields.PowerState
_GONE = (exception.InstanceNotFound, exception.UnexpectedTaskStateError)


class Moves:
    """The move steps of one compute; the manager routes RPC here under
    the instance's lock."""

    def __init__(self, host, driver, tracker, compute_api_factory,
                 conductor_api_factory):
        self.host = host
        self.driver = driver
        self.rt = tracker
        self._compute_api = compute_api_factory
        self._conductor_api = conductor_api_factory

    # Destination

    def prep_resize(self, context, instance, migration, flavor,
                    request_spec, host_list):
        try:
            wanted = self._still_wanted(context, instance, migration)
        except Exception as exc:
            # No answer (the conductor or the database away longer than
            # the call waits): the move goes back to the conductor with
            # no alternate, which undoes it if it still stands, rather
            # than staying in resize_prep until task_timeout.
            LOG.warning('Could not tell whether the move of %s is still '
                        'wanted (%s); handing it back', instance.uuid,
                        power.message(exc))
            self._conductor_api().migrate_server(
                context, instance, flavor, migration=migration,
                host_list=[], request_spec=request_spec)
            return False
        if not wanted:
            return False
        event = 'compute_prep_resize'
        power.event_start(context, instance, event, self.host)
        claim = None
        try:
            claim = self.rt.resize_claim(context, instance, flavor,
                                         migration)
            self.driver.prepare_for_move(context, instance, flavor,
                                         migration.dest_node)
        except Exception as exc:
            if claim is not None:
                claim.abort()
            LOG.warning('Prep of the move of %s on %s (%s) failed: %s',
                        instance.uuid, self.host, migration.dest_node,
                        power.message(exc))
            power.event_finish(context, instance, event, exc)
            self._conductor_api().migrate_server(
                context, instance, flavor, migration=migration,
                host_list=list(host_list[1:]) if host_list else [],
                request_spec=request_spec)
            return False
        power.event_finish(context, instance, event)
        self._compute_api().resize_instance(context, instance, migration,
                                            flavor)
        return True

    @staticmethod
    def _still_wanted(context, instance, migration):
        """False for a prep_resize the conductor gave up on: a cast that
        waited in this compute's queue while it was down arrives after
        ``[conductor] task_timeout`` undid the move, and must not claim
        here again."""
        try:
            status = objects.Migration.get_by_uuid(context,
                                                   migration.uuid).status
        except exception.MigrationNotFound:
            status = None
        if status == 'pre-migrating':
            return True
        LOG.info('Not preparing the move of %s on this host: its migration '
                 '%s is %s', instance.uuid, migration.uuid, status or 'gone')
        return False

    def finish_resize(self, context, instance, migration, flavor):
        event = 'compute_finish_resize'
        power_on = instance.vm_state != _V.STOPPED
        if not self._begin(context, instance, migration, event,
                           _T.RESIZE_FINISH, _T.RESIZE_MIGRATED):
            return False
        try:
            power.vm_step(self.driver.finish_migration, context,
                          instance, flavor, migration.dest_node, power_on)
            instance.host = self.host
            instance.node = migration.dest_node
            instance.compute_node_uuid = self.driver.get_node_uuid(
                migration.dest_node)
            instance.flavor = flavor
            instance.root_gb = flavor.root_gb
            instance.ephemeral_gb = flavor.ephemeral_gb
            # The migration first, as Nova: whoever sees VERIFY_RESIZE can
            # confirm or revert at once (both look for a finished one).
            migration.status = 'finished'
            migration.save()
            instance.vm_state = _V.RESIZED
            instance.power_state = _P.RUNNING if power_on else _P.SHUTDOWN
            instance.task_state = None
            instance.save(expected_task_state=[_T.RESIZE_FINISH])
            self.rt.move_finished(instance, migration)
        except _GONE as exc:
            power.event_finish(context, instance, event, exc)
            return False
        except Exception as exc:
            self._failed(context, instance, migration, event, exc)
            return False
        power.event_finish(context, instance, event)
        LOG.info('Instance %s moved to %s (%s): VERIFY_RESIZE',
                 instance.uuid, self.host, migration.dest_node)
        return True

    def revert_resize(self, context, instance, migration,
                      conductor_finishes=False):
        """Destroy the VM of a reverted move here (destination), then
        have the revert finished: by the conductor with
        ``conductor_finishes``, else by the source. A VM that cannot be
        destroyed puts the server in ERROR with a fault, the migration in
        ``error``, and both hosts stay held."""
        event = 'compute_revert_resize'
        power.event_start(context, instance, event, self.host)
        try:
            if (conductor_finishes and
                    not self._conductor_api().can_send_finish_revert()):
                # Checked before the VM goes: the server must not lose it
                # with nobody to finish the revert.
                raise exception.UnsupportedRPCVersion(
                    method='finish_revert_resize', service='conductor',
                    needed=conductor_rpcapi.FINISH_REVERT_VERSION,
                    pin='an older release')
            self.driver.destroy(context, instance)
        except exception.InstanceNotFound:
            pass
        except Exception as exc:
            self._failed(context, instance, migration, event, exc)
            return False
        self.rt.free_migration(migration)
        self.rt.free_instance(instance)
        power.event_finish(context, instance, event)
        if conductor_finishes:
            self._conductor_api().finish_revert_resize(context, instance,
                                                       migration)
        else:
            self._compute_api().finish_revert_resize(context, instance,
                                                     migration)
        return True

    # Source

    def resize_instance(self, context, instance, migration, flavor):
        event = 'compute_resize_instance'
        # The task first: a move the conductor gave up on (timed out in
        # resize_prep) stops here with its migration left alone.
        if not self._begin(context, instance, migration, event,
                           _T.RESIZE_MIGRATING, _T.RESIZE_PREP):
            return False
        try:
            migration.status = 'migrating'
            migration.save()
            power.vm_step(self.driver.migrate_disk_and_power_off,
                          context, instance, flavor,
                          migration.dest_compute, migration.dest_node)
            migration.status = 'post-migrating'
            migration.save()
            self._set_task(instance, _T.RESIZE_MIGRATED,
                           _T.RESIZE_MIGRATING)
        except _GONE as exc:
            power.event_finish(context, instance, event, exc)
            return False
        except Exception as exc:
            self._failed(context, instance, migration, event, exc)
            return False
        power.event_finish(context, instance, event)
        self._compute_api().finish_resize(context, instance, migration,
                                          flavor)
        return True

    def confirm_resize(self, context, instance, migration):
        event = 'compute_confirm_resize'
        power.event_start(context, instance, event, self.host)
        try:
            self.driver.confirm_migration(context, instance,
                                          migration.source_node)
        except Exception as exc:
            # The records are settled; only a copy is left behind.
            LOG.error('Removing the source copy of %s failed: %s',
                      instance.uuid, power.message(exc))
            power.event_finish(context, instance, event, exc)
            return False
        finally:
            self.rt.free_migration(migration)
        power.event_finish(context, instance, event)
        return True

    def finish_revert_resize(self, context, instance, migration):
        event = 'compute_finish_revert_resize'
        power.event_start(context, instance, event, self.host)
        power_on = instance.power_state != _P.SHUTDOWN
        try:
            power.vm_step(self.driver.finish_revert_migration, context,
                          instance, migration.source_node, power_on)
            instance.vm_state = _V.ACTIVE if power_on else _V.STOPPED
            instance.power_state = _P.RUNNING if power_on else _P.SHUTDOWN
            instance.task_state = None
            instance.save(expected_task_state=[_T.RESIZE_REVERTING])
            migration.status = 'reverted'
            migration.save()
            self.rt.track_instance(instance)
        except _GONE as exc:
            power.event_finish(context, instance, event, exc)
            return False
        except Exception as exc:
            self._failed(context, instance, migration, event, exc)
            return False
        finally:
            self.rt.free_migration(migration)
        power.event_finish(context, instance, event)
        LOG.info('Instance %s is back on %s (%s)', instance.uuid,
                 self.host, migration.source_node)
        return True

    # Helpers

    def _begin(self, context, instance, migration, event, task_state,
               expected):
        """Take a step: move the task from ``expected`` to ``task_state``,
        then record the event's start. False, with nothing recorded, when
        the task has moved on or the server is gone: a second copy of a
        cast whose first copy ran (a resend that crossed a slow delivery)
        or a move the conductor gave up on must not add a failed event
        to the action the first copy completed. Any other failure to
        save fails the step as before."""
        try:
            self._set_task(instance, task_state, expected)
        except _GONE as exc:
            LOG.info('Not running %s for instance %s: %s', event,
                     instance.uuid, power.message(exc))
            return False
        except Exception as exc:
            power.event_start(context, instance, event, self.host)
            self._failed(context, instance, migration, event, exc)
            return False
        power.event_start(context, instance, event, self.host)
        return True

    @staticmethod
    def _set_task(instance, task_state, expected):
        instance.task_state = task_state
        instance.save(expected_task_state=[expected])

    def _failed(self, context, instance, migration, event, error):
        LOG.error('%s of instance %s failed: %s', event, instance.uuid,
                  power.message(error))
        power.record_fault(context, self.host, instance, error)
        power.event_finish(context, instance, event, error)
        instance.vm_state = _V.ERROR
        instance.task_state = None
        try:
            instance.save()
        except exception.InstanceNotFound:
            pass
        migration.status = 'error'
        try:
            migration.save()
        except exception.MigrationNotFound:
            pass

