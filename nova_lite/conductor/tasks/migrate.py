"""Resize and cold migration: from the request to the destination's prep.

Steps (each undone when a later one fails, see ``base.TaskBase``):

1. ``move_records.start_move``: the Migration (pre-migrating), the
   source allocations handed to it, the larger flavor counted and its
   quota committed, in one transaction (undo: clear the task state and
   roll the quota reservation back);
2. the scheduler chooses and claims a destination for the instance with
   the new flavor (cold migration: the same one), the source excluded
   (``ignore_hosts``; a resize may stay with ``allow_resize_to_same_host``)
   and an administrator's named host as ``requested_destination``, which
   the filters still check; the server group is read again, so its policy
   holds (undo of steps 1-2: ``move_records.abandon_move``);
3. the destination and the new flavor are recorded (migration and saved
   RequestSpec), then ``prep_resize`` is cast to the destination with the
   alternates.

A destination whose prep fails hands the move back (``host_list`` set):
the instance's allocation moves to the next alternate that still has room
and the prep is cast there; when none is left, or nothing fits at all,
the server stays where it was, in its vm_state, with a fault and an
Error event naming why (the scheduler's per-filter account), and the
migration is in error.
"""

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.conductor.tasks import alternates
from nova_lite.conductor.tasks import base
from nova_lite.conductor.tasks import move_records as records
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.quota import reservations as quota_reservations

LOG = logging.getLogger(__name__)

EVENT = 'conductor_migrate_server'
_GONE = (exception.InstanceNotFound, exception.UnexpectedTaskStateError)


class MigrateTask(base.TaskBase):
    """Start (or reschedule) a resize or cold migration; see the module
    docstring."""

    def __init__(self, context, instance, flavor, scheduler_api,
                 compute_api, host=None, reservation=None, migration=None,
                 host_list=None, request_spec=None):
        super().__init__(context, instance)
        self.flavor = flavor
        self.host = host
        self.reservation = reservation
        self.migration = migration
        self.host_list = host_list
        self.request_spec = request_spec
        self.saved_spec = None
        self.scheduler_api = scheduler_api
        self.compute_api = compute_api

    @property
    def is_resize(self):
        return self.flavor.flavorid != self.instance.flavor.flavorid

    def _execute(self):
        self.event_start(EVENT)
        if self.migration is None:
            self._start()
        else:
            self._reschedule()
        self.event_finish(EVENT)

    def _start(self):
        self.on_failure(self._clear_task)
        self.migration = records.start_move(
            self.context, self.instance, self.flavor,
            'resize' if self.is_resize else 'migration', self.reservation)
        # From here the records say "moving": undo them as one.
        self._undo = [self._abandon]
        self.saved_spec = objects.RequestSpec.get_by_instance_uuid(
            self.context, self.instance.uuid)
        spec = self._scheduling_spec(self.saved_spec)
        try:
            host_lists = self.scheduler_api.select_destinations(
                self.context, spec, [self.instance.uuid],
                return_alternates=True)
        except messaging.MessagingTimeout:
            # It may have claimed: the undo removes the instance's
            # allocations whatever they are.
            raise exception.NoValidHost(
                reason='the scheduler did not answer in time')
        self._send(host_lists[0], spec)

    def _scheduling_spec(self, saved):
        same_host = self.is_resize and CONF.allow_resize_to_same_host
        return scheduling_spec(
            self.context, saved, self.instance, self.flavor, self.host,
            [] if same_host else [self.instance.host])

    def _send(self, host_list, spec):
        selection = host_list[0]
        records.record_destination(self.context, self.migration, selection,
                                   self.saved_spec, self.flavor)
        spec.record_attempt(selection.service_host, selection.nodename)
        LOG.info('Moving instance %s from %s to %s (%s), %d alternate(s)',
                 self.instance.uuid, self.migration.source_compute,
                 selection.service_host, selection.nodename,
                 len(host_list) - 1)
        self.compute_api.prep_resize(self.context, self.instance,
                                     self.migration, self.flavor, spec,
                                     host_list)

    def _reschedule(self):
        self._undo = [self._abandon]
        try:
            self.saved_spec = objects.RequestSpec.get_by_instance_uuid(
                self.context, self.instance.uuid)
        except exception.RequestSpecNotFound:
            self.saved_spec = None
        rest = alternates.claim_first(self.context,
                                      self.instance, self.host_list,
                                      'the move')
        if rest is None:
            raise exception.MaxRetriesExceeded(
                reason='The move failed on every destination tried: %s.'
                       % alternates.tried(self.request_spec))
        self._send(rest, self.request_spec)

    # Undos and the failure record

    def _clear_task(self):
        if self.reservation:
            quota_reservations.rollback(self.context,
                                        self.reservation['uuid'])
        self.instance.task_state = None
        try:
            self.instance.save(
                expected_task_state=[fields.TaskState.RESIZE_PREP])
        except _GONE:
            pass

    def _abandon(self):
        try:
            records.abandon_move(self.context, self.instance,
                                            self.migration, self.saved_spec)
        except _GONE:
            LOG.info('Instance %s was deleted during its move',
                     self.instance.uuid)
            return

    def rollback(self, error):
        self.record_fault(error)
        self.event_finish(EVENT, error)


def scheduling_spec(context, saved, instance, flavor, host, ignore_hosts):
    """The saved RequestSpec as a move asks it: ``flavor``,
    ``ignore_hosts`` excluded (the source), ``host`` (if any) required
    and still filtered, nothing forced, no attempts yet, the server
    group's members read again."""
    spec = saved.obj_clone()
    spec._context = context
    spec.flavor = flavor
    spec.num_instances = 1
    spec.instance_uuid = instance.uuid
    spec.ignore_hosts = list(ignore_hosts)
    spec.force_hosts = None
    spec.force_nodes = None
    spec.retry = None
    spec.requested_destination = (
        {'host': host, 'node': None} if host else None)
    _load_server_group(context, spec)
    return spec


def _load_server_group(context, spec):
    """Fill the request's server group with its current members and their
    hosts, as for a boot, so its policy holds for the move."""
    group = (spec.instance_group
             if spec.obj_attr_is_set('instance_group') else None)
    if group is None:
        return
    group._context = context
    try:
        group.load_for_scheduling()
    except exception.InstanceGroupNotFound:
        spec.instance_group = None
