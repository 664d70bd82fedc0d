"""Unshelve of an offloaded server: through the scheduler again.

Steps (each undone when a later one fails, see ``base.TaskBase``):

1. the saved RequestSpec is updated with the request (the new
   ``availability_zone`` if one was given) and its image becomes the
   shelved snapshot, so later moves and the filters see the truth;
2. the scheduler chooses and claims a node for the instance, in that
   zone and, for an administrator's ``host`` (microversion 2.91), on that
   host as ``requested_destination``, which the filters still check
   (undo: free whatever the instance holds in placement);
3. ``unshelve_instance`` is cast to the chosen compute with the
   alternates, which spawns the VM from the snapshot.

A compute whose start failed hands the unshelve back (``host_list`` set):
the instance's allocation moves to the next alternate that still has
room. When none is left, or nothing fits at all, the server goes back to
SHELVED_OFFLOADED with no allocation, a fault and an Error event naming
why (the scheduler's per-filter account): never stuck in ``unshelving``.
"""

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.conductor.tasks import alternates
from nova_lite.conductor.tasks import base
from nova_lite.conductor.tasks import migrate
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.placement import allocations

LOG = logging.getLogger(__name__)

EVENT = 'conductor_unshelve_instance'
_GONE = (exception.InstanceNotFound, exception.UnexpectedTaskStateError)


class UnshelveTask(base.TaskBase):
    """Schedule (or reschedule) an offloaded server; see the module
    docstring."""

    def __init__(self, context, instance, scheduler_api, compute_api,
                 availability_zone=None, host=None, request_spec=None,
                 host_list=None):
        super().__init__(context, instance)
        self.availability_zone = availability_zone
        self.host = host
        self.request_spec = request_spec
        self.host_list = host_list
        self.scheduler_api = scheduler_api
        self.compute_api = compute_api

    def _execute(self):
        self.event_start(EVENT)
        self.on_failure(self._release)
        if self.host_list is None:
            self._schedule()
        else:
            self._reschedule()
        self.event_finish(EVENT)

    def _schedule(self):
        spec = self._scheduling_spec(self._updated_spec())
        try:
            host_lists = self.scheduler_api.select_destinations(
                self.context, spec, [self.instance.uuid],
                return_alternates=True)
        except messaging.MessagingTimeout:
            raise exception.NoValidHost(
                reason='the scheduler did not answer in time')
        self._send(host_lists[0], spec)

    def _updated_spec(self):
        """The saved RequestSpec with this unshelve's zone and image,
        saved so later moves see them."""
        saved = objects.RequestSpec.get_by_instance_uuid(
            self.context, self.instance.uuid)
        if self.availability_zone is not None:
            saved.availability_zone = self.availability_zone
        saved.image = objects.ImageMeta.from_image(self._shelved_image())
        saved.save()
        return saved

    def _shelved_image(self):
        image_id = self.instance.shelved_image_id
        try:
            return image_api.get(self.context.elevated(), image_id)
        except exception.ImageNotFound:
            raise exception.UnshelveImageNotFound(
                instance_uuid=self.instance.uuid, image_id=image_id)

    def _scheduling_spec(self, saved):
        spec = saved.obj_clone()
        spec._context = self.context
        spec.num_instances = 1
        spec.instance_uuid = self.instance.uuid
        spec.ignore_hosts = []
        spec.force_hosts = None
        spec.force_nodes = None
        spec.retry = None
        spec.requested_destination = (
            {'host': self.host, 'node': None} if self.host else None)
        migrate._load_server_group(self.context, spec)
        return spec

    def _send(self, host_list, spec):
        selection = host_list[0]
        spec.record_attempt(selection.service_host, selection.nodename)
        LOG.info('Unshelving instance %s on %s (%s), %d alternate(s)',
                 self.instance.uuid, selection.service_host,
                 selection.nodename, len(host_list) - 1)
        self.compute_api.unshelve_instance(
            self.context, self.instance, selection.service_host,
            node=selection.nodename, request_spec=spec, host_list=host_list)

    def _reschedule(self):
        rest = alternates.claim_first(self.context,
                                      self.instance, self.host_list,
                                      'the unshelve')
        if rest is None:
            raise exception.MaxRetriesExceeded(
                reason='The unshelve failed on every host tried: %s.'
                       % alternates.tried(self.request_spec))
        self._send(rest, self.request_spec)

    # Undo and the failure record

    def _release(self):
        allocations.remove(self.context, self.instance.uuid)

    def rollback(self, error):
        self.instance.vm_state = fields.VMState.SHELVED_OFFLOADED
        self.instance.task_state = None
        self.instance.host = None
        self.instance.node = None
        self.instance.compute_node_uuid = None
        try:
            self.instance.save(
                expected_task_state=[fields.TaskState.UNSHELVING])
        except _GONE:
            LOG.info('Instance %s was deleted during its unshelve',
                     self.instance.uuid)
            return
        self.record_fault(error)
        self.event_finish(EVENT, error)
