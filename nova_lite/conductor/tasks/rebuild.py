"""Rebuild on the same host: from the request to the compute.

Steps (each undone when a later one fails, see ``base.TaskBase``):

1. a new image (``image_ref`` other than the instance's previous one) is
   checked against the instance's host by the scheduler, as Nova does:
   the saved RequestSpec with the new image, the host and node forced,
   and the scheduler hint ``_nova_check_type`` "rebuild", so that only
   the filters with ``RUN_ON_REBUILD`` run (the image filters; no
   placement step, nothing claimed: the instance keeps its allocation);
2. the saved RequestSpec takes the new image (so later moves see it),
   then ``rebuild_instance`` is cast to the instance's compute.

When the check fails (NoValidHost, naming the filters), Nova's outcome:
the instance's previous image is put back, the server goes to ERROR with
no task and a fault, and the event ``conductor_rebuild_server`` ends in
Error with the scheduler's per-filter account. (A rebuild from ERROR
with an image that fits brings it back.)
"""

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.conductor.tasks import base
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.scheduler import utils as scheduler_utils

LOG = logging.getLogger(__name__)

EVENT = 'conductor_rebuild_server'
_GONE = (exception.InstanceNotFound, exception.UnexpectedTaskStateError)


def load_spec(context, instance_uuid):
    try:
        return objects.RequestSpec.get_by_instance_uuid(context,
                                                        instance_uuid)
    except exception.RequestSpecNotFound:
        return None


class RebuildTask(base.TaskBase):
    """Check a new image on the instance's host, then cast the rebuild;
    see the module docstring."""

    def __init__(self, context, instance, image_ref, orig_image_ref,
                 scheduler_api, compute_api, new_pass=None,
                 preserve_ephemeral=False):
        super().__init__(context, instance)
        self.image_ref = image_ref
        self.orig_image_ref = orig_image_ref
        self.new_pass = new_pass
        self.preserve_ephemeral = preserve_ephemeral
        self.scheduler_api = scheduler_api
        self.compute_api = compute_api

    def _execute(self):
        self.event_start(EVENT)
        spec = load_spec(self.context, self.instance.uuid)
        if self.image_ref != self.orig_image_ref:
            image = objects.ImageMeta.from_image(
                image_api.get(self.context, self.image_ref))
            if spec is not None:
                self._check_host(spec, image)
                spec.image = image
                spec.save()
        self.event_finish(EVENT)
        self.compute_api.rebuild_instance(
            self.context, self.instance, self.instance.host, self.image_ref,
            self.orig_image_ref, new_pass=self.new_pass,
            preserve_ephemeral=self.preserve_ephemeral,
            node=self.instance.node, request_spec=spec)

    def _check_host(self, saved, image):
        """NoValidHost unless the instance's host passes the rebuild
        filters with ``image``."""
        spec = saved.obj_clone()
        spec._context = self.context
        spec.image = image
        spec.num_instances = 1
        spec.instance_uuid = self.instance.uuid
        hints = dict(spec.scheduler_hints or {})
        hints[scheduler_utils.CHECK_TYPE_HINT] = ['rebuild']
        spec.scheduler_hints = hints
        spec.force_hosts = [self.instance.host]
        spec.force_nodes = [self.instance.node] if self.instance.node else None
        spec.ignore_hosts = None
        spec.requested_destination = None
        spec.retry = None
        try:
            self.scheduler_api.select_destinations(
                self.context, spec, [self.instance.uuid],
                return_alternates=False)
        except messaging.MessagingTimeout:
            raise exception.NoValidHost(
                reason='the scheduler did not answer in time')

    def rollback(self, error):
        """Nova's outcome of a rebuild that cannot start: the previous
        image back, ERROR, a fault, the event in Error."""
        self.instance.image_ref = self.orig_image_ref
        self.instance.vm_state = fields.VMState.ERROR
        self.instance.task_state = None
        try:
            self.instance.save(
                expected_task_state=[fields.TaskState.REBUILDING])
        except _GONE:
            return
        self.record_fault(error)
        self.event_finish(EVENT, error)
