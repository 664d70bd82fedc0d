"""The compute manager: builds and deletes servers on this host's nodes.

It is the RPC endpoint of ``nova_lite.compute.rpcapi``. Builds are done
by ``compute/build.py``, server actions (reboot, stop, start, ...) by
``compute/power.py``, moves, rebuilds, shelving and live migration by
their own modules; this module routes them, under the instance's lock,
and deletes. Every database read and write goes through objects, whose
remotable methods the conductor runs for a compute.
"""

import threading

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_service import periodic_task

from nova_lite.compute import build
from nova_lite.compute import diagnostics
from nova_lite.compute import image_cache
from nova_lite.compute import live_migration
from nova_lite.compute import moves
from nova_lite.compute import power
from nova_lite.compute import rebuild
from nova_lite.compute import recovery
from nova_lite.compute import resource_tracker
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute import shelve
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.conf import CONF
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import manager
from nova_lite.objects import fields
from nova_lite.scheduler import rpcapi as scheduler_rpcapi
from nova_lite.virt import driver as virt_driver

LOG = logging.getLogger(__name__)


class _InstanceLocks:
    """One lock per instance uuid, so a build and a delete of the same
    instance never interleave (as Nova serialises them)."""

    def __init__(self):
        self._guard = threading.Lock()
        self._locks = {}   # uuid -> [lock, users]

    def __call__(self, uuid):
        return _HeldLock(self, uuid)

    def acquire(self, uuid):
        with self._guard:
            entry = self._locks.setdefault(uuid, [threading.Lock(), 0])
            entry[1] += 1
        entry[0].acquire()

    def release(self, uuid):
        with self._guard:
            entry = self._locks[uuid]
            entry[0].release()
            entry[1] -= 1
            if not entry[1]:
                del self._locks[uuid]


class _HeldLock:
    def __init__(self, locks, uuid):
        self.locks, self.uuid = locks, uuid

    def __enter__(self):
        self.locks.acquire(self.uuid)

    def __exit__(self, *exc):
        self.locks.release(self.uuid)


class ComputeManager(manager.Manager):
    """Builds (``build_and_run_instance``) and deletes
    (``terminate_instance``) instances, and keeps placement current
    (``update_available_resource``, at start and periodically).

    Builds run in a pool of their own (``build.Builds``), so a burst of
    builds never starves the RPC server of threads for deletes.
    """

    target = messaging.Target(version=compute_rpcapi.RPC_VERSION)

    def __init__(self, host=None):
        super().__init__(host or CONF.host, 'compute')
        self.driver = virt_driver.load_compute_driver()
        self.rt = resource_tracker.ResourceTracker(self.host, self.driver)
        self._conductor_api = None
        self._scheduler_api = None
        self._instance_locks = _InstanceLocks()
        self._ran = power.RanRequests()
        self.builds = build.Builds(self.host, self.driver, self.rt,
                                   self._instance_locks,
                                   lambda: self.conductor_api)
        self._compute_api = None
        self.moves = moves.Moves(self.host, self.driver, self.rt,
                                 lambda: self.compute_api,
                                 lambda: self.conductor_api)
        self.rebuilds = rebuild.Rebuilds(self.host, self.driver, self.rt,
                                         lambda: self.conductor_api)
        self.shelving = shelve.Shelving(self.host, self.driver, self.rt,
                                        lambda: self.scheduler_api,
                                        lambda: self.conductor_api)
        self.live = live_migration.LiveMigration(
            self.host, self.driver, self.rt, lambda: self.compute_api,
            lambda: self.conductor_api)
        # The decorator's spacing is fixed at import, before the
        # configuration is parsed; take the configured one here.
        self._periodic_spacing = dict(self._periodic_spacing)
        self._periodic_spacing['update_available_resource'] = (
            CONF.update_resources_interval)
        # (Disabled ones only tick hourly and return at once.)
        self._periodic_spacing['_poll_shelved_instances'] = (
            CONF.shelved_poll_interval if CONF.shelved_poll_interval > 0
            else 3600)

    @property
    def conductor_api(self):
        # Built on first use: rpc.init() runs after the manager exists.
        if self._conductor_api is None:
            self._conductor_api = conductor_rpcapi.ConductorAPI()
        return self._conductor_api

    @property
    def compute_api(self):
        # For the moves, which cast from one compute to the other.
        if self._compute_api is None:
            self._compute_api = compute_rpcapi.ComputeAPI()
        return self._compute_api

    @property
    def scheduler_api(self):
        if self._scheduler_api is None:
            self._scheduler_api = scheduler_rpcapi.SchedulerAPI()
        return self._scheduler_api

    def init_host(self):
        self.driver.init_host(self.host)
        ctxt = nl_context.get_admin_context()
        # Before anything is counted: what was evacuated away while this
        # compute was down is no longer ours (Nova's order).
        self.rebuilds.destroy_evacuated_instances(ctxt)
        recovery.reconcile_builds(ctxt, self.host, self.driver,
                                  self.conductor_api)
        recovery.reap_deleted(ctxt, self.host, self.driver)
        recovery.reap_moved_away(ctxt, self.host, self.driver)
        recovery.resume_actions(ctxt, self.host, self.driver)
        recovery.settle_moves(ctxt, self.host, self.conductor_api)
        recovery.reap_failed_moves(ctxt, self.host, self.driver)
        try:
            self.rt.update_available_resource(ctxt, startup=True)
        except Exception:
            # The periodic task retries; a conductor that is late to come
            # up must not keep the compute from starting.
            LOG.exception('Initial resource report of host %s failed',
                          self.host)

    def reset(self):
        """On SIGHUP: the next resource update reports every node in
        full, re-adding owned traits removed externally (seed 000)."""
        self.rt.reset()

    def cleanup_host(self):
        # Builds already accepted finish before the service exits.
        self.builds.shutdown()
        self.driver.cleanup_host(self.host)

    @periodic_task.periodic_task(spacing=60)
    def update_available_resource(self, context):
        """Recount the nodes and report changes to placement."""
        self.rt.update_available_resource(context)

    @periodic_task.periodic_task(spacing=3600)
    def _poll_shelved_instances(self, context):
        """Offload servers shelved longer than [DEFAULT]
        shelved_offload_time (when positive)."""
        if CONF.shelved_offload_time <= 0 or CONF.shelved_poll_interval <= 0:
            return
        self.shelving.offload_expired(context, CONF.shelved_offload_time)

    # Build (compute/build.py does the work)

    def build_and_run_instance(self, context, instance, node, request_spec,
                               host_list):
        """Queue the build of ``instance`` on ``node`` (RPC cast); see
        ``build.Builds.queue``. Returns a Future of the build (RPC
        callers ignore it; tests wait on it)."""
        return self.builds.queue(context, instance, node, request_spec,
                                 host_list)

    # Delete

    def terminate_instance(self, context, instance):
        """Destroy ``instance`` here and delete its record (whose write
        tells the schedulers)."""
        with self._instance_locks(instance.uuid):
            LOG.info('Terminating instance %s', instance.uuid)
            try:
                self.driver.destroy(context, instance)
            except exception.InstanceNotFound:
                LOG.info('Instance %s is already gone from the driver',
                         instance.uuid)
            except Exception as exc:
                self._set_delete_error(context, instance, exc)
                return
            self.rt.free_instance(instance)
            try:
                _destroy_record(instance)
            except exception.InstanceNotFound:
                LOG.info('Instance %s was already deleted', instance.uuid)
                return
            LOG.info('Terminated instance %s', instance.uuid)

    def _set_delete_error(self, context, instance, error):
        """The VM could not be removed: keep the record, in ERROR."""
        LOG.error('Destroying instance %s failed: %s', instance.uuid,
                  power.message(error))
        build.record_fault(context, self.host, instance, error, error)
        instance.vm_state = fields.VMState.ERROR
        instance.task_state = None
        try:
            instance.save()
        except exception.InstanceNotFound:
            pass


    # Server actions (RPC 1.1): one method each, all alike.

    def _run_action(self, context, instance, method, **kwargs):
        with self._instance_locks(instance.uuid):
            if not self._ran.first_time(instance.uuid, context.request_id,
                                        method):
                LOG.info('%s of instance %s (request %s) was sent again; '
                         'it ran here already', method, instance.uuid,
                         context.request_id)
                return False
            return power.run(context, self.driver, self.host, instance,
                             method, **kwargs)

    def reboot_instance(self, context, instance, reboot_type):
        return self._run_action(context, instance, 'reboot_instance',
                                reboot_type=reboot_type)

    def stop_instance(self, context, instance):
        return self._run_action(context, instance, 'stop_instance')

    def start_instance(self, context, instance):
        return self._run_action(context, instance, 'start_instance')

    def pause_instance(self, context, instance):
        return self._run_action(context, instance, 'pause_instance')

    def unpause_instance(self, context, instance):
        return self._run_action(context, instance, 'unpause_instance')

    def suspend_instance(self, context, instance):
        return self._run_action(context, instance, 'suspend_instance')

    def resume_instance(self, context, instance):
        return self._run_action(context, instance, 'resume_instance')

    # RPC 1.6.
    def trigger_crash_dump(self, context, instance):
        return self._run_action(context, instance, 'trigger_crash_dump')


    # Resize and cold migration (RPC 1.2): compute/moves.py does the work.

    def _run_move(self, context, instance, step, once=None, **kwargs):
        """``step`` of compute/moves.py under the instance's lock; with
        ``once`` (a key), a step that ran here already under that key is
        not run again (False)."""
        with self._instance_locks(instance.uuid):
            if once is not None and not self._ran.first_time(
                    instance.uuid, once, step):
                LOG.info('%s of instance %s (%s) was sent again; it ran '
                         'here already', step, instance.uuid, once)
                return False
            return getattr(self.moves, step)(context, instance, **kwargs)

    def prep_resize(self, context, instance, migration, flavor,
                    request_spec, host_list):
        # A conductor casts a prep no compute took up again
        # (lost_actions.py); one that sat in this queue meanwhile is the
        # same migration's, prepared once.
        return self._run_move(context, instance, 'prep_resize',
                              once=migration.uuid, migration=migration,
                              flavor=flavor, request_spec=request_spec,
                              host_list=host_list)

    def resize_instance(self, context, instance, migration, flavor):
        return self._run_move(context, instance, 'resize_instance',
                              migration=migration, flavor=flavor)

    def finish_resize(self, context, instance, migration, flavor):
        return self._run_move(context, instance, 'finish_resize',
                              migration=migration, flavor=flavor)

    def confirm_resize(self, context, instance, migration):
        return self._run_move(context, instance, 'confirm_resize',
                              migration=migration)

    def revert_resize(self, context, instance, migration,
                      conductor_finishes=False):
        return self._run_move(context, instance, 'revert_resize',
                              migration=migration,
                              conductor_finishes=conductor_finishes)

    def finish_revert_resize(self, context, instance, migration):
        return self._run_move(context, instance, 'finish_revert_resize',
                              migration=migration)

    # Rebuild and evacuate (RPC 1.4): compute/rebuild.py does the work.

    def rebuild_instance(self, context, instance, image_ref, orig_image_ref,
                         new_pass=None, preserve_ephemeral=False,
                         recreate=False, on_shared_storage=None,
                         migration=None, node=None, request_spec=None,
                         host_list=None, target_state=None):
        with self._instance_locks(instance.uuid):
            return self.rebuilds.rebuild_instance(
                context, instance, image_ref, orig_image_ref,
                new_pass=new_pass, preserve_ephemeral=preserve_ephemeral,
                recreate=recreate, on_shared_storage=on_shared_storage,
                migration=migration, node=node, request_spec=request_spec,
                host_list=host_list, target_state=target_state)

    # Snapshots and shelving (RPC 1.3): compute/shelve.py does the work.

    def _run_shelve(self, context, instance, step, **kwargs):
        with self._instance_locks(instance.uuid):
            return getattr(self.shelving, step)(context, instance, **kwargs)

    def snapshot_instance(self, context, instance, image_id):
        return self._run_shelve(context, instance, 'snapshot_instance',
                                image_id=image_id)

    # RPC 1.8.
    def backup_instance(self, context, instance, image_id, backup_type,
                        rotation):
        return self._run_shelve(context, instance, 'backup_instance',
                                image_id=image_id, backup_type=backup_type,
                                rotation=rotation)

    def shelve_instance(self, context, instance, image_id,
                        clean_shutdown=True):
        return self._run_shelve(context, instance, 'shelve_instance',
                                image_id=image_id,
                                clean_shutdown=clean_shutdown)

    def shelve_offload_instance(self, context, instance,
                                clean_shutdown=True):
        return self._run_shelve(context, instance, 'shelve_offload_instance',
                                clean_shutdown=clean_shutdown)

    def unshelve_instance(self, context, instance, node=None,
                          request_spec=None, host_list=None):
        return self._run_shelve(context, instance, 'unshelve_instance',
                                node=node, request_spec=request_spec,
                                host_list=host_list)

    # Live migration (RPC 1.5): compute/live_migration.py does the work.

    def _run_live(self, context, instance, step, **kwargs):
        with self._instance_locks(instance.uuid):
            return getattr(self.live, step)(context, instance, **kwargs)

    def check_can_live_migrate_destination(self, context, instance,
                                           migration, block_migration):
        return self.live.check_can_live_migrate_destination(
            context, instance, migration=migration,
            block_migration=block_migration)

    def pre_live_migration(self, context, instance, migration,
                           migrate_data):
        # Not under the lock: the source holds it while it calls here
        # (both ends may be this host's own nodes).
        return self.live.pre_live_migration(
            context, instance, migration=migration,
            migrate_data=migrate_data)

    def live_migration(self, context, instance, migration, migrate_data):
        return self._run_live(context, instance, 'live_migration',
                              migration=migration, migrate_data=migrate_data)

    def post_live_migration_at_destination(self, context, instance,
                                           migration):
        return self._run_live(context, instance,
                              'post_live_migration_at_destination',
                              migration=migration)

    def rollback_live_migration_at_destination(self, context, instance,
                                               migration):
        return self._run_live(context, instance,
                              'rollback_live_migration_at_destination',
                              migration=migration)

    def live_migration_abort(self, context, instance, migration):
        # Not under the lock: the migration it stops holds it.
        return self.live.live_migration_abort(context, instance,
                                              migration=migration)

    def live_migration_force_complete(self, context, instance, migration):
        return self.live.live_migration_force_complete(
            context, instance, migration=migration)

    # Diagnostics and host uptime (RPC 1.7): read-only, no lock needed.

    def get_diagnostics(self, context, instance):
        return diagnostics.driver_diagnostics(self.driver, instance)

    def get_instance_diagnostics(self, context, instance):
        return diagnostics.instance_diagnostics(self.driver, instance)

    def get_host_uptime(self, context):
        return self.driver.get_host_uptime()

    # RPC 1.9: the aggregate image pre-cache (API microversion 2.81).
    def cache_images(self, context, image_ids):
        image_cache.cache_images(self.driver, context, self.host, image_ids)


# Attempts at deleting a record through the conductors, and how long each
# waits for its answer.
DESTROY_ATTEMPTS = 3
DESTROY_CALL_TIMEOUT = 10


def _destroy_record(instance):
    """``instance.destroy()`` through a conductor, asked again when no
    answer came (the conductor that took the call died, or its reply was
    lost): a destroy that did commit answers InstanceNotFound the second
    time, so asking again never deletes twice."""
    timeout = DESTROY_CALL_TIMEOUT
    for attempt in range(1, DESTROY_ATTEMPTS + 1):
        try:
            with conductor_rpcapi.call_timeout(timeout):
                return instance.destroy()
        except messaging.MessagingTimeout:
            if attempt == DESTROY_ATTEMPTS:
                raise
            LOG.warning('No conductor answered the delete of instance %s '
                        'within %d s; asking again', instance.uuid, timeout)
