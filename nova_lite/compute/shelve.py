"""Snapshots and shelving on the compute.

The API set the task state and registered the image, queued; the compute
takes the snapshot, in Nova's order of task states:

* ``snapshot_instance`` (``createImage``): image_snapshot ->
  image_pending_upload -> image_uploading -> None; the image becomes
  active with its size. On failure the image is deleted and the server
  keeps its state, with a fault.
* ``backup_instance`` (``createBackup``): image_backup ->
  image_pending_upload -> image_uploading -> None as a snapshot, then the
  server's backups of that type beyond the newest ``rotation`` are
  deleted, oldest first (with rotation 0, the one just taken too: Nova's
  rotation).
* ``shelve_instance``: shelving -> shelving_image_pending_upload ->
  shelving_image_uploading, the VM powered off, then SHELVED (with
  shelved_at, shelved_image_id, shelved_host), and at once offloaded
  when [DEFAULT] shelved_offload_time is 0.
* ``shelve_offload_instance`` (and the periodic offload after
  shelved_offload_time): shelving_offloading, the VM removed, then the
  conductor records it (``conductor/tasks/shelve_offload.py``):
  SHELVED_OFFLOADED with no host or node and the host's allocations
  freed in the same write; the instance and its quota stay.
* ``unshelve_instance``: a SHELVED server powers on where it is; an
  offloaded one is spawned from its snapshot on the node the conductor
  claimed (``conductor/tasks/unshelve.py``), handed back with the
  alternates left if that fails. Either way the snapshot is deleted once
  the server is ACTIVE.
"""

import datetime

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.compute import build
from nova_lite.compute import power
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields

LOG = logging.getLogger(__name__)

_T = fields.TaskState
_V = fields.VMState
_P = fields.PowerState
_GONE = (exception.InstanceNotFound, exception.UnexpectedTaskStateError)
# The fields of a shelved server, cleared when it is unshelved.
SHELVED_FIELDS = ('shelved_at', 'shelved_image_id', 'shelved_host')


def _set_task(instance, task_state, expected):
    instance.task_state = task_state
    instance.save(expected_task_state=[expected])


def _delete_image(context, image_id):
    if not image_id:
        return
    try:
        objects.Image.delete_by_id(context, image_id)
    except Exception:
        # A leftover image is visible and deletable; never a reason to
        # fail the operation that no longer needs it.
        LOG.exception('Deleting image %s failed', image_id)


class Shelving:
    """The snapshot and shelve steps of one compute; the manager routes
    RPC here under the instance's lock."""

    def __init__(self, host, driver, tracker, scheduler_api_factory,
                 conductor_api_factory):
        self.host = host
        self.driver = driver
        self.rt = tracker
        self._scheduler_api = scheduler_api_factory
        self._conductor_api = conductor_api_factory

    # createImage

    def snapshot_instance(self, context, instance, image_id):
        event = 'compute_snapshot_instance'
        power.event_start(context, instance, event, self.host)
        try:
            self._upload(context, instance, image_id, _T.IMAGE_SNAPSHOT,
                         _T.IMAGE_PENDING_UPLOAD, _T.IMAGE_UPLOADING)
            instance.task_state = None
            instance.save(expected_task_state=[_T.IMAGE_UPLOADING])
        except Exception as exc:
            self._failed(context, instance, event, exc, image_id)
            return False
        power.event_finish(context, instance, event)
        LOG.info('Snapshot of instance %s saved as image %s', instance.uuid,
                 image_id)
        return True

    # createBackup

    def backup_instance(self, context, instance, image_id, backup_type,
                        rotation):
        event = 'compute_backup_instance'
        power.event_start(context, instance, event, self.host)
        try:
            self._upload(context, instance, image_id, _T.IMAGE_BACKUP,
                         _T.IMAGE_PENDING_UPLOAD, _T.IMAGE_UPLOADING)
            instance.task_state = None
            instance.save(expected_task_state=[_T.IMAGE_UPLOADING])
        except Exception as exc:
            self._failed(context, instance, event, exc, image_id)
            return False
        try:
            deleted = objects.Image.rotate_backups(
                context, instance.uuid, backup_type, rotation)
        except Exception as exc:
            # The backup is taken; a rotation that failed leaves extra
            # images, never a failed action.
            LOG.warning('Rotating the %s backups of instance %s failed: %s',
                        backup_type, instance.uuid, power.message(exc))
            deleted = []
        power.event_finish(context, instance, event)
        LOG.info('Backup of instance %s saved as image %s; rotation %d '
                 'deleted %s', instance.uuid, image_id, rotation,
                 ', '.join(deleted) or 'nothing')
        return True

    def _upload(self, context, instance, image_id, first, pending,
                uploading):
        """Walk the task states of an upload and take the snapshot; the
        image ends active with its size."""
        _set_task(instance, pending, first)
        objects.Image.set_status(context, image_id, 'saving')
        _set_task(instance, uploading, pending)
        size = self.driver.snapshot(context, instance, image_id)
        objects.Image.set_status(context, image_id, 'active', size=size)

    # Shelve

    def shelve_instance(self, context, instance, image_id,
                        clean_shutdown=True):
        event = 'compute_shelve_instance'
        power.event_start(context, instance, event, self.host)
        powered_off = False
        try:
            if instance.power_state != _P.SHUTDOWN:
                self.driver.power_off(context, instance)
            powered_off = True
            self._upload(context, instance, image_id, _T.SHELVING,
                         _T.SHELVING_IMAGE_PENDING_UPLOAD,
                         _T.SHELVING_IMAGE_UPLOADING)
            offload = CONF.shelved_offload_time == 0
            instance.vm_state = _V.SHELVED
            instance.power_state = _P.SHUTDOWN
            instance.task_state = _T.SHELVING_OFFLOADING if offload else None
            instance.shelved_at = timeutils.utcnow()
            instance.shelved_image_id = image_id
            instance.shelved_host = self.host
            instance.save(expected_task_state=[_T.SHELVING_IMAGE_UPLOADING])
        except Exception as exc:
            if powered_off:
                instance.vm_state = _V.STOPPED
                instance.power_state = _P.SHUTDOWN
            self._failed(context, instance, event, exc, image_id)
            return False
        power.event_finish(context, instance, event)
        LOG.info('Instance %s is shelved (image %s)', instance.uuid,
                 image_id)
        if offload:
            return self.shelve_offload_instance(context, instance)
        return True

    def shelve_offload_instance(self, context, instance,
                                clean_shutdown=True):
        event = 'compute_shelve_offload_instance'
        power.event_start(context, instance, event, self.host)
        try:
            self.driver.shelve_offload(context, instance)
        except Exception as exc:
            self._failed(context, instance, event, exc)
            return False
        try:
            instance = self._record_offload(context, instance)
        except _GONE as exc:
            power.event_finish(context, instance, event, exc)
            return False
        self.rt.free_instance(instance)
        power.event_finish(context, instance, event)
        LOG.info('Instance %s is offloaded from %s', instance.uuid,
                 self.host)
        return True

    def _record_offload(self, context, instance):
        """Have the conductor record the offload (its task decides what
        that writes and frees); returns the instance as saved."""
        conductor = self._conductor_api()
        if conductor.can_send_shelve_offloaded():
            return conductor.shelve_offloaded(context, instance)
        # A conductor pinned below 1.9 (of an older release, it saves
        # the fields it is sent): the remotable save of older computes.
        instance.vm_state = _V.SHELVED_OFFLOADED
        instance.power_state = _P.SHUTDOWN
        instance.task_state = None
        instance.host = None
        instance.node = None
        instance.compute_node_uuid = None
        instance.save_offloaded(expected_task_state=[_T.SHELVING_OFFLOADING])
        return instance

    def offload_expired(self, context, offload_time):
        """Offload this host's servers shelved more than ``offload_time``
        seconds ago (a positive [DEFAULT] shelved_offload_time). Returns
        the uuids offloaded."""
        cutoff = (timeutils.utcnow().replace(tzinfo=None)
                  - datetime.timedelta(seconds=offload_time))
        done = []
        for instance in objects.InstanceList.get_by_host(context, self.host):
            shelved_at = instance.shelved_at
            if (instance.vm_state != _V.SHELVED or instance.task_state
                    or shelved_at is None
                    or shelved_at.replace(tzinfo=None) > cutoff):
                continue
            instance.task_state = _T.SHELVING_OFFLOADING
            try:
                instance.save(expected_task_state=[None],
                              expected_vm_state=[_V.SHELVED])
            except (exception.InstanceInvalidState,) + _GONE:
                continue
            if self.shelve_offload_instance(context, instance):
                done.append(instance.uuid)
        return done

    # Unshelve

    def unshelve_instance(self, context, instance, node=None,
                          request_spec=None, host_list=None):
        if node is None:
            return self._unshelve_here(context, instance)
        return self._unshelve_on(context, instance, node, request_spec,
                                 host_list)

    def _unshelve_here(self, context, instance):
        """A SHELVED server that kept its host: power it on."""
        event = 'compute_unshelve_instance'
        power.event_start(context, instance, event, self.host)
        image_id = instance.shelved_image_id
        try:
            self.driver.power_on(context, instance)
            self._set_active(instance)
        except Exception as exc:
            self._failed(context, instance, event, exc)
            return False
        power.event_finish(context, instance, event)
        _delete_image(context, image_id)
        return True

    def _unshelve_on(self, context, instance, node, request_spec,
                     host_list):
        """An offloaded server: claim, spawn from the snapshot, ACTIVE."""
        event = 'compute_unshelve_instance'
        power.event_start(context, instance, event, self.host)
        image_id = instance.shelved_image_id
        try:
            claim = self.rt.instance_claim(context, instance, node)
        except Exception as exc:
            return self._hand_back(context, instance, event, exc,
                                   request_spec, host_list)
        try:
            self._place(instance, node, host_list)
            self.driver.unshelve(context, instance,
                                 build.image_meta(request_spec), node)
            self._set_active(instance)
        except Exception as exc:
            try:
                self.driver.destroy(context, instance)
            except Exception:
                LOG.exception('Cleaning up instance %s failed',
                              instance.uuid)
            claim.abort()
            if isinstance(exc, _GONE):
                power.event_finish(context, instance, event, exc)
                return False
            return self._hand_back(context, instance, event, exc,
                                   request_spec, host_list)
        self.rt.update_usage(context, instance, node)
        power.event_finish(context, instance, event)
        _delete_image(context, image_id)
        LOG.info('Instance %s is unshelved on %s (%s)', instance.uuid,
                 self.host, node)
        return True

    def _place(self, instance, node, host_list):
        instance.host = self.host
        instance.node = node
        instance.compute_node_uuid = self.driver.get_node_uuid(node)
        selection = host_list[0] if host_list else None
        zone = (selection.availability_zone if selection is not None
                and selection.obj_attr_is_set('availability_zone')
                else None)
        if zone:
            instance.availability_zone = zone
        instance.save(expected_task_state=[_T.UNSHELVING])

    @staticmethod
    def _set_active(instance):
        instance.vm_state = _V.ACTIVE
        instance.power_state = _P.RUNNING
        instance.task_state = None
        for name in SHELVED_FIELDS:
            setattr(instance, name, None)
        instance.save(expected_task_state=[_T.UNSHELVING])

    def _hand_back(self, context, instance, event, error, request_spec,
                   host_list):
        """The start failed here: say why, give the instance back to the
        conductor with the alternates left."""
        LOG.warning('Unshelve of instance %s on %s failed: %s',
                    instance.uuid, self.host, power.message(error))
        power.record_fault(context, self.host, instance, error)
        power.event_finish(context, instance, event, error)
        instance.host = None
        instance.node = None
        instance.compute_node_uuid = None
        try:
            instance.save(expected_task_state=[_T.UNSHELVING])
        except _GONE:
            return False
        self._conductor_api().unshelve_instance(
            context, instance, request_spec=request_spec,
            host_list=list(host_list[1:]) if host_list else [])
        return False

    # Failures

    def _failed(self, context, instance, event, error, image_id=None):
        """Record ``error``, clear the task; delete the unfinished
        snapshot ``image_id``."""
        if image_id:
            _delete_image(context, image_id)
        if isinstance(error, _GONE):
            power.event_finish(context, instance, event, error)
            return
        LOG.error('%s of instance %s failed: %s', event, instance.uuid,
                  power.message(error))
        power.record_fault(context, self.host, instance, error)
        power.event_finish(context, instance, event, error)
        # Conditional on the task this step last saved: a delete that
        # came in meanwhile keeps its task.
        expected = instance.task_state
        instance.task_state = None
        try:
            instance.save(expected_task_state=[expected])
        except _GONE:
            pass

