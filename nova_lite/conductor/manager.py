"""The conductor: database writes for the others, and the build workflow.

Thin by design: object indirection is answered here, workflows live in
``conductor/tasks`` (provision, build, ownership and lost_builds,
migrate, resize_outcome, rebuild, evacuate, unshelve, timeouts) and
placement reports in
``conductor/provider_report.py``.
"""

from oslo_db import api as oslo_db_api
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_service import periodic_task
from oslo_utils import versionutils

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import provider_report
from nova_lite.conductor import rpcapi
from nova_lite.conductor.tasks import build
from nova_lite.conductor.tasks import evacuate
from nova_lite.conductor.tasks import lost_builds
from nova_lite.conductor.tasks import migrate
from nova_lite.conductor.tasks import move_timeouts
from nova_lite.conductor.tasks import provision
from nova_lite.conductor.tasks import rebuild
from nova_lite.conductor.tasks import rebuild_timeouts
from nova_lite.conductor.tasks import resize_outcome
from nova_lite.conductor.tasks import timeouts
from nova_lite.conductor.tasks import unshelve
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite import manager
from nova_lite.objects import base as objects_base
from nova_lite.quota import reservations as quota_reservations
from nova_lite import rpc_stats
from nova_lite.scheduler import rpcapi as scheduler_rpcapi

LOG = logging.getLogger(__name__)

# A database blip (a restart, a failover, connections terminated) must not
# fail a compute's save: its build would be undone or left in BUILD. A
# lost connection is retried for about ten seconds, well inside the
# caller's rpc_response_timeout. A connection refused or dropped before
# the commit wrote nothing; the saves compare-and-swap on their expected
# states, so one that did commit is refused, not applied twice.
_retry_on_disconnect = oslo_db_api.wrap_db_retry(
    max_retries=6, retry_interval=0.5, inc_retry_interval=True,
    max_retry_interval=2, retry_on_disconnect=True)


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
        result = getattr(objclass, objmethod)(context, *args, **kwargs)
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
        before = {name: getattr(objinst, name) for name in objinst.fields
                  if objinst.obj_attr_is_set(name)}
        result = _retry_on_disconnect(getattr(objinst, objmethod))(
            *args, **kwargs)
        # Send back what the method changed, so the caller's copy matches.
        updates = {}
        for name, field in objinst.fields.items():
            if not objinst.obj_attr_is_set(name):
                continue
            value = getattr(objinst, name)
            if name not in before or before[name] != value:
                updates[name] = field.to_primitive(objinst, name, value)
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
                            min_count, max_count):
        return provision.provision_instances(context, instance, request_spec,
                                             min_count, max_count)

    def build_instances(self, context, instances, request_spec,
                        host_lists=None):
        task = build.BuildTask(context, instances, request_spec, host_lists,
                               self.scheduler_api, self.compute_api)
        task.execute()

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
        return evacuate.complete_evacuation(context, migration,
                                            self.scheduler_api)
    # -- shelving (1.2) -------------------------------------------------

    def unshelve_instance(self, context, instance, availability_zone=None,
                          host=None, request_spec=None, host_list=None):
        unshelve.UnshelveTask(
            context, instance, self.scheduler_api, self.compute_api,
            availability_zone=availability_zone, host=host,
            request_spec=request_spec, host_list=host_list).execute()

    # -- compute reports ------------------------------------------------

    @messaging.expected_exceptions(exception.NovaLiteException)
    def update_compute_provider(self, context, compute_node, inventories,
                                traits, owned_traits):
        changed, written = provider_report.update_compute_provider(
            context, compute_node, inventories, traits, owned_traits)
        if changed:
            self.scheduler_api.update_provider_states(context,
                                                      [compute_node.uuid])
        return written

    # -- periodic -------------------------------------------------------

    @periodic_task.periodic_task(
        spacing=CONF.conductor.build_timeout_check_interval,
        run_immediately=True)
    def _fail_stuck_builds(self, context):
        released = timeouts.fail_stuck_builds(context,
                                              CONF.conductor.build_timeout)
        released |= timeouts.fail_builds_on_down_computes(context)
        released |= timeouts.remove_orphaned_allocations(
            context, CONF.conductor.build_timeout_check_interval)
        self.scheduler_api.update_provider_states(context, released)
        timeouts.reset_stuck_tasks(context, CONF.conductor.task_timeout)

    @periodic_task.periodic_task(
        spacing=CONF.conductor.lost_build_check_interval,
        run_immediately=True)
    def _redrive_lost_builds(self, context):
        lost_builds.redrive(context, self.scheduler_api, self.compute_api,
                            CONF.conductor.lost_build_grace)

    @periodic_task.periodic_task(
        spacing=CONF.conductor.build_timeout_check_interval)
    def _settle_moves(self, context):
        resize_outcome.confirm_expired(context, CONF.resize_confirm_window,
                                       self.scheduler_api, self.compute_api)
        move_timeouts.fail_stuck_moves(context, CONF.conductor.task_timeout,
                                       self.scheduler_api)
        rebuild_timeouts.fail_stuck_rebuilds(
            context, CONF.conductor.task_timeout, self.scheduler_api)

    @periodic_task.periodic_task(
        spacing=CONF.quota.reservation_expire_check_interval,
        run_immediately=True)
    def _expire_reservations(self, context):
        # Reservations of requests that never finished (their conductor
        # died between reserve and commit) give their quota back.
        quota_reservations.expire_reservations(context)
