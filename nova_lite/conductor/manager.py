"""The conductor: database writes for the others, and the build workflow.

Thin by design: object indirection is answered here, workflows live in
``conductor/tasks`` (provision, build, ownership, lost_builds and
lost_casts,
migrate, live_migrate, resize_outcome, rebuild, evacuate, unshelve,
shelve_offload, timeouts),
placement reports in
``conductor/provider_report.py`` and the admission of the builds
``provision_instances`` starts in ``conductor/admission.py``.
"""

import concurrent.futures

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_service import periodic_task
from oslo_utils import versionutils

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import admission
from nova_lite.conductor import provider_report
from nova_lite.conductor import rpcapi
from nova_lite.conductor.tasks import build
from nova_lite.conductor.tasks import build_started as started_builds
from nova_lite.conductor.tasks import evacuate
from nova_lite.conductor.tasks import lost_builds
from nova_lite.conductor.tasks import lost_casts
from nova_lite.conductor.tasks import live_migrate
from nova_lite.conductor.tasks import lost_actions
from nova_lite.conductor.tasks import lost_outcomes
from nova_lite.conductor.tasks import migrate
from nova_lite.conductor.tasks import move_timeouts
from nova_lite.conductor.tasks import ownership
from nova_lite.conductor.tasks import provision
from nova_lite.conductor.tasks import rebuild
from nova_lite.conductor.tasks import rebuild_timeouts
from nova_lite.conductor.tasks import request_keys
from nova_lite.conductor.tasks import resize_outcome
from nova_lite.conductor.tasks import shelve_offload
from nova_lite.conductor.tasks import stuck_deletes
from nova_lite.conductor.tasks import timeouts
from nova_lite.conductor.tasks import unshelve
from nova_lite.conf import CONF
from nova_lite.conf import messaging as conf_messaging
from nova_lite.db import api as db_api
from nova_lite import exception
from nova_lite import manager
from nova_lite.objects import base as objects_base
from nova_lite.quota import reservations as quota_reservations
from nova_lite import rpc_stats
from nova_lite.scheduler import rpcapi as scheduler_rpcapi

LOG = logging.getLogger(__name__)


class ConductorManager(manager.Manager):
    """Endpoint of the ``conductor`` topic; see conductor/rpcapi.py."""

    target = messaging.Target(version=rpcapi.RPC_VERSION)

    def __init__(self, host=None):
        super().__init__(host or CONF.host, 'conductor')
        self.scheduler_api = scheduler_rpcapi.SchedulerAPI()
        self.compute_api = compute_rpcapi.ComputeAPI()
        # The decorator's spacing is fixed at import, before the
        # configuration is parsed; take the configured one here.
        self._periodic_spacing = dict(self._periodic_spacing)
        # Builds that provision_instances starts itself (RPC 1.5) run
        # here, after the call answered; as many at once as RPC requests.
        self._build_pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=conf_messaging.executor_thread_pool_size(CONF),
            thread_name_prefix='build')
        # Bounds what waits in that pool ([conductor] max_pending_builds).
        self._admission = admission.Admission()
        self.reset()

    def reset(self):
        """At start, and after SIGHUP mutated the configuration: the
        check intervals (mutable) take effect at once."""
        self._periodic_spacing['_fail_stuck_builds'] = (
            CONF.conductor.build_timeout_check_interval)
        self._periodic_spacing['_redrive_lost_builds'] = (
            CONF.conductor.lost_build_check_interval)

    def ping(self, context, arg):
        return arg

    # -- object indirection ---------------------------------------------

    @messaging.expected_exceptions(exception.NovaLiteException)
    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        objclass = objects_base.NovaLiteObject.obj_class_from_name(
            objname, object_versions[objname])
        # Retried across a database blip, as object_action: a compute's
        # read (a move's migration, say) must not fail its step.
        result = db_api.retry_on_disconnect(getattr(objclass, objmethod))(
            context, *args, **kwargs)
        if not isinstance(result, objects_base.NovaLiteObject):
            return result
        # Answer in the caller's version (seed 003): an older caller gets
        # the object backported here rather than one it cannot read.
        wanted = object_versions.get(result.obj_name(), result.VERSION)
        ours = versionutils.convert_version_to_tuple(result.VERSION)
        theirs = versionutils.convert_version_to_tuple(wanted)
        if theirs < ours or theirs[0] != ours[0]:
            rpc_stats.record('backported',
                             '%s@%s' % (result.obj_name(), wanted))
            return result.obj_to_primitive(target_version=wanted,
                                           version_manifest=object_versions)
        return result

    @messaging.expected_exceptions(exception.NovaLiteException)
    def object_action(self, context, objinst, objmethod, args, kwargs):
        # A shallow snapshot is enough: methods replace field values rather
        # than mutate them, and a deep copy of every object costs more than
        # the database work of a save.
        before = objinst.obj_set_values()
        # A database blip must not fail a compute's save (its build would
        # be undone or left in BUILD): it is retried well inside the
        # caller's rpc_response_timeout. The saves compare-and-swap on
        # their expected states, so one that did commit is refused, not
        # applied twice.
        result = db_api.retry_on_disconnect(getattr(objinst, objmethod))(
            *args, **kwargs)
        # Send back what the method changed, so the caller's copy matches.
        updates = {}
        for name, value in objinst.obj_set_values().items():
            if name not in before or before[name] != value:
                updates[name] = objinst.fields[name].to_primitive(
                    objinst, name, value)
        updates['obj_what_changed'] = objinst.obj_what_changed()
        return updates, result

    def object_backport_versions(self, context, objinst, object_versions):
        target = object_versions[objinst.obj_name()]
        LOG.debug('Backporting %s to %s', objinst.obj_name(), target)
        rpc_stats.record('backported', '%s@%s' % (objinst.obj_name(), target))
        return objinst.obj_to_primitive(target_version=target,
                                        version_manifest=object_versions)

    # -- boot -----------------------------------------------------------

    @messaging.expected_exceptions(exception.NovaLiteException)
    def provision_instances(self, context, instance, request_spec,
                            min_count, max_count, build=False,
                            request_key=None):
        instances, owned = provision.provision(
            context, instance, request_spec, min_count, max_count,
            request_key)
        # An earlier attempt's servers are built by its conductor (or
        # re-driven if it died).
        if build and owned is not provision.EARLIER:
            self._start_build(context, instances, request_spec, owned)
        return instances

    def _start_build(self, context, instances, request_spec, owned):
        """Queue the build of what provision_instances just created, once
        the builds ahead of it leave room (see admission.py); it runs
        once the call has answered. Marked as worked on from now, so
        this process's lost-build check never takes a waiting or queued
        build for a lost cast; a conductor that dies with builds queued
        loses them as it would lose casts it took, and they are
        re-driven."""
        marker = ownership.working(i.uuid for i in instances)
        marker.__enter__()
        count = len(instances)
        admitted = False
        try:
            if not self._admission.admit(count):
                LOG.debug('Build of %s admitted after waiting %s s: %d '
                          'instance(s) pending', ', '.join(
                              i.uuid for i in instances),
                          CONF.conductor.build_admission_timeout,
                          self._admission.pending)
            admitted = True
            return self._build_pool.submit(
                self._run_build, marker, context, instances, request_spec,
                owned)
        except BaseException:
            if admitted:
                self._admission.release(count)
            marker.__exit__(None, None, None)
            raise

    def _run_build(self, marker, context, instances, request_spec, owned):
        # The build logs with the request's id, as the RPC thread did.
        context.update_store()
        try:
            build.BuildTask(context, instances, request_spec, None,
                            self.scheduler_api, self.compute_api,
                            provisioned=owned).execute()
        except Exception:
            # Nothing above would log it: this runs in a pool.
            LOG.exception('Build of %s failed unexpectedly',
                          ', '.join(i.uuid for i in instances))
        finally:
            self._admission.release(len(instances))
            marker.__exit__(None, None, None)

    def cleanup_host(self):
        # Builds already started finish before the service exits.
        self._build_pool.shutdown(wait=True)

    def build_instances(self, context, instances, request_spec,
                        host_lists=None):
        task = build.BuildTask(context, instances, request_spec, host_lists,
                               self.scheduler_api, self.compute_api)
        task.execute()

    def build_received(self, context, instance_uuid, host):
        """Compute ``host`` got the build cast of ``instance_uuid``
        (1.6; see conductor/tasks/lost_casts.py)."""
        if not ownership.acknowledge(context, instance_uuid, host):
            LOG.debug('Receipt of build %s by %s changed nothing',
                      instance_uuid, host)

    def build_started(self, context, instance, host):
        """1.10: compute ``host`` received the build of ``instance`` and
        saves it spawning there (conductor/tasks/build_started.py)."""
        started_builds.record(context, instance, host)

    # -- moves (1.1) ----------------------------------------------------

    def migrate_server(self, context, instance, flavor, host=None,
                       reservation=None, migration=None, host_list=None,
                       request_spec=None):
        migrate.MigrateTask(
            context, instance, flavor, self.scheduler_api, self.compute_api,
            host=host, reservation=reservation, migration=migration,
            host_list=host_list, request_spec=request_spec).execute()

    def confirm_resize(self, context, instance, migration):
        resize_outcome.ConfirmTask(context, instance, migration,
                                   self.scheduler_api,
                                   self.compute_api).execute()

    def revert_resize(self, context, instance, migration):
        resize_outcome.RevertTask(context, instance, migration,
                                  self.scheduler_api,
                                  self.compute_api).execute()

    def settle_moves(self, context, host):
        """1.8: compute ``host`` restarted and lost the steps it was
        working on."""
        return move_timeouts.settle_restarted(context, host)

    def finish_revert_resize(self, context, instance, migration):
        """1.9: the destination of a revert removed its VM."""
        resize_outcome.FinishRevertTask(context, instance, migration,
                                        self.compute_api).execute()

    # -- rebuild and evacuate (1.3) -------------------------------------

    def rebuild_instance(self, context, instance, image_ref, orig_image_ref,
                         new_pass=None, preserve_ephemeral=False,
                         recreate=False, on_shared_storage=None, host=None,
                         migration=None, request_spec=None, host_list=None,
                         target_state=None):
        if not recreate:
            rebuild.RebuildTask(
                context, instance, image_ref, orig_image_ref,
                self.scheduler_api, self.compute_api, new_pass=new_pass,
                preserve_ephemeral=preserve_ephemeral).execute()
            return
        evacuate.EvacuateTask(
            context, instance, migration, self.scheduler_api,
            self.compute_api, host=host, new_pass=new_pass,
            on_shared_storage=on_shared_storage, request_spec=request_spec,
            host_list=host_list, target_state=target_state).execute()

    @messaging.expected_exceptions(exception.NovaLiteException)
    def complete_evacuation(self, context, migration):
        return evacuate.complete_evacuation(context, migration)

    # -- shelving (1.2) -------------------------------------------------

    def unshelve_instance(self, context, instance, availability_zone=None,
                          host=None, request_spec=None, host_list=None):
        unshelve.UnshelveTask(
            context, instance, self.scheduler_api, self.compute_api,
            availability_zone=availability_zone, host=host,
            request_spec=request_spec, host_list=host_list).execute()

    @messaging.expected_exceptions(exception.NovaLiteException)
    def shelve_offloaded(self, context, instance):
        """1.9: a compute removed a shelved VM; returns the instance as
        saved."""
        shelve_offload.offload(context, instance)
        return instance

    # -- live migration (1.4) -------------------------------------------

    @messaging.expected_exceptions(exception.NovaLiteException)
    def live_migrate_instance(self, context, instance, host=None,
                              block_migration=None, disk_over_commit=None,
                              migration=None, failure=None):
        if migration is not None:
            live_migrate.settle(context, instance, migration, failure)
            return
        task = live_migrate.LiveMigrateTask(
            context, instance, self.scheduler_api, self.compute_api,
            host=host, block_migration=block_migration)
        task.execute()
        # A caller that waits (the API below 2.34) learns why; the
        # records are already back on the source.
        if isinstance(task.error, exception.NovaLiteException):
            raise task.error

    # -- compute reports ------------------------------------------------

    @messaging.expected_exceptions(exception.NovaLiteException)
    def update_compute_provider(self, context, compute_node, inventories,
                                traits, owned_traits):
        _changed, written = provider_report.update_compute_provider(
            context, compute_node, inventories, traits, owned_traits)
        return written

    # -- periodic -------------------------------------------------------

    @periodic_task.periodic_task(
        spacing=CONF.conductor.build_timeout_check_interval,
        run_immediately=True)
    def _fail_stuck_builds(self, context):
        # The compute services seen down, read once for both checks.
        down = timeouts.down_computes(context)
        released = timeouts.fail_stuck_builds(context,
                                              CONF.conductor.build_timeout)
        released |= timeouts.fail_builds_on_down_computes(context, down)
        released |= timeouts.remove_orphaned_allocations(
            context, CONF.conductor.build_timeout_check_interval)
        timeouts.reset_stuck_tasks(context, CONF.conductor.task_timeout,
                                   down=down)

    @periodic_task.periodic_task(
        spacing=CONF.conductor.lost_build_check_interval,
        run_immediately=True)
    def _redrive_lost_builds(self, context):
        lost_builds.redrive(context, self.scheduler_api, self.compute_api,
                            CONF.conductor.lost_build_grace)
        lost_casts.settle(context, self.scheduler_api, self.compute_api,
                          CONF.conductor.lost_cast_grace)
        stuck_deletes.resend(context, self.compute_api,
                             CONF.conductor.delete_resend_after)
        lost_actions.resend(context, self.compute_api,
                            CONF.conductor.action_resend_after)
        lost_outcomes.resend(context, self.scheduler_api, self.compute_api,
                             CONF.conductor.action_resend_after)

    @periodic_task.periodic_task(
        spacing=CONF.conductor.build_timeout_check_interval)
    def _settle_moves(self, context):
        resize_outcome.confirm_expired(context, CONF.resize_confirm_window,
                                       self.scheduler_api, self.compute_api)
        down = timeouts.down_computes(context)
        move_timeouts.fail_stuck_moves(context, CONF.conductor.task_timeout,
                                       down)
        rebuild_timeouts.fail_stuck_rebuilds(
            context, CONF.conductor.task_timeout, down)

    @periodic_task.periodic_task(
        spacing=CONF.quota.reservation_expire_check_interval,
        run_immediately=True)
    def _expire_reservations(self, context):
        # Reservations of requests that never finished (their conductor
        # died between reserve and commit) give their quota back.
        quota_reservations.expire_reservations(context)
        request_keys.purge(context)
