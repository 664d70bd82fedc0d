"""Evacuation: from the request to the target's rebuild.

Steps (each undone when a later one fails, see ``base.TaskBase``):

1. ``evacuate_records.start_evacuation``: the source allocations handed
   to the migration (``pre-migrating``), in one transaction;
2. the scheduler chooses and claims a target for the instance with its
   flavor, as for a boot, with alternates: the source excluded
   (``ignore_hosts``), an administrator's named host as
   ``requested_destination`` (checked by every filter: never forced, as
   Nova since 2.68), the server group read again so its policy holds;
3. the target is recorded on the migration and ``rebuild_instance``
   (``recreate``) is cast to it with the alternates.

A target that cannot take it (its claim, or the rebuild itself, failed)
hands the evacuation back (``host_list`` set): the instance's
allocation moves to the next alternate that still has room and the
rebuild is cast there. When none is left, or nothing fits at all, the
undo of ``evacuate_records.abandon_evacuation`` runs (Nova's outcome:
the server in ERROR on its old host with a fault saying why, naming the
filters; the migration in ``error``).

The source's allocations stay with the migration until the source
compute comes back (``complete_evacuation``).
"""

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.conductor.tasks import alternates
from nova_lite.conductor.tasks import base
from nova_lite.conductor.tasks import evacuate_records as records
from nova_lite.conductor.tasks import migrate
from nova_lite.conductor.tasks import rebuild
from nova_lite import exception

LOG = logging.getLogger(__name__)

EVENT = rebuild.EVENT
_GONE = (exception.InstanceNotFound, exception.UnexpectedTaskStateError)


class EvacuateTask(base.TaskBase):
    """Start (or reschedule) an evacuation; see the module docstring."""

    def __init__(self, context, instance, migration, scheduler_api,
                 compute_api, host=None, new_pass=None,
                 on_shared_storage=None, request_spec=None, host_list=None,
                 target_state=None):
        super().__init__(context, instance)
        self.migration = migration
        self.host = host
        self.new_pass = new_pass
        self.on_shared_storage = on_shared_storage
        self.request_spec = request_spec
        self.host_list = host_list
        self.target_state = target_state
        self.scheduler_api = scheduler_api
        self.compute_api = compute_api

    def _execute(self):
        self.event_start(EVENT)
        self._undo = [self._abandon]
        if self.host_list is None:
            self._start()
        else:
            self._reschedule()
        self.event_finish(EVENT)

    def _start(self):
        records.start_evacuation(self.context, self.instance,
                                 self.migration)
        saved = rebuild.load_spec(self.context, self.instance.uuid)
        if saved is None:
            raise exception.NoValidHost(
                reason='the server has no saved request spec')
        spec = self._scheduling_spec(saved)
        try:
            host_lists = self.scheduler_api.select_destinations(
                self.context, spec, [self.instance.uuid],
                return_alternates=True)
        except messaging.MessagingTimeout:
            raise exception.NoValidHost(
                reason='the scheduler did not answer in time')
        self._send(host_lists[0], spec)

    def _scheduling_spec(self, saved):
        """The saved RequestSpec as an evacuation asks it: source
        excluded, named host required, nothing forced, no attempts."""
        spec = saved.obj_clone()
        spec._context = self.context
        spec.num_instances = 1
        spec.instance_uuid = self.instance.uuid
        spec.ignore_hosts = [self.instance.host]
        spec.force_hosts = None
        spec.force_nodes = None
        spec.retry = None
        spec.requested_destination = (
            {'host': self.host, 'node': None} if self.host else None)
        migrate._load_server_group(self.context, spec)
        return spec

    def _send(self, host_list, spec):
        selection = host_list[0]
        records.record_target(self.context, self.migration, selection)
        spec.record_attempt(selection.service_host, selection.nodename)
        LOG.info('Evacuating instance %s from %s to %s (%s), %d '
                 'alternate(s)', self.instance.uuid,
                 self.migration.source_compute, selection.service_host,
                 selection.nodename, len(host_list) - 1)
        self.compute_api.rebuild_instance(
            self.context, self.instance, selection.service_host,
            self.instance.image_ref, self.instance.image_ref,
            new_pass=self.new_pass, recreate=True,
            on_shared_storage=self.on_shared_storage,
            migration=self.migration, node=selection.nodename,
            request_spec=spec, host_list=list(host_list),
            target_state=self.target_state)

    def _reschedule(self):
        rest = alternates.claim_first(self.context,
                                      self.instance, self.host_list,
                                      'the evacuation')
        if rest is None:
            raise exception.MaxRetriesExceeded(
                reason='The evacuation failed on every target tried: %s.'
                       % alternates.tried(self.request_spec))
        self._send(rest, self.request_spec)

    def _abandon(self):
        try:
            records.abandon_evacuation(
                self.context, self.instance, self.migration)
        except _GONE:
            LOG.info('Instance %s was deleted during its evacuation',
                     self.instance.uuid)
            return

    def rollback(self, error):
        self.record_fault(error)
        self.event_finish(EVENT, error)


def complete_evacuation(context, migration):
    """The source of ``migration`` came back: free it (see
    evacuate_records.complete_evacuation). Returns True if done now."""
    released = records.complete_evacuation(context, migration)
    if released is None:
        return False
    LOG.info('Evacuation %s of instance %s completed: its source %s is '
             'free', migration.uuid, migration.instance_uuid,
             migration.source_compute)
    return True
