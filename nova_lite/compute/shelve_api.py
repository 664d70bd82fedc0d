"""The compute API for snapshots, backups and shelving, API side.

``create_image``, ``backup`` and ``shelve`` register the image first
(queued, shown SAVING), as Nova does with Glance, then set the task
state and cast to the server's compute (``compute/shelve.py``);
``shelve_offload`` casts there too. ``unshelve`` powers a SHELVED server
on where it is, or hands an offloaded one to the conductor
(``conductor/tasks/unshelve.py``), which schedules it again. Each
checks, in Nova's order, the lock, the services' RPC pins (409 while a
rolling upgrade has not reached them), then the server's state (Nova's
409).
"""

from oslo_log import log as logging

from nova_lite import availability_zones
from nova_lite.compute import action_api
from nova_lite.compute import rpc_clients
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.quota import limits as quota_limits

LOG = logging.getLogger(__name__)

_T = fields.TaskState
_V = fields.VMState

# Nova's instance action names.
CREATE_IMAGE, SHELVE = 'createImage', 'shelve'
CREATE_BACKUP = 'createBackup'
SHELVE_OFFLOAD, UNSHELVE = 'shelveOffload', 'unshelve'
# Where a snapshot or a shelve may start from (Nova's lists).
SNAPSHOT_VM_STATES = (_V.ACTIVE, _V.STOPPED, _V.PAUSED, _V.SUSPENDED)
SHELVE_VM_STATES = SNAPSHOT_VM_STATES
UNSHELVE_VM_STATES = (_V.SHELVED, _V.SHELVED_OFFLOADED)
COMPUTE_BINARY = 'nova-lite-compute'
# Base image properties a snapshot does not inherit (Nova's list, less
# what nova_lite has no use for).
_NOT_INHERITED = ('instance_uuid', 'user_id', 'image_type',
                  'base_image_ref', 'image_location', 'image_state',
                  'owner_id')


class ShelveAPI(rpc_clients.RPCClients):
    """createImage, shelve, shelveOffload and unshelve for the API
    handlers; RPC clients made on first use, so tests can replace them."""

    def _check_pins(self, instance, action, conductor=False):
        if not self.compute_rpcapi.can_send_shelve() or (
                conductor and not self.conductor_rpcapi.can_send_shelve()):
            raise exception.ComputeTooOldForAction(
                action=action, instance_uuid=instance.uuid,
                version=compute_rpcapi.SHELVE_VERSION)

    @staticmethod
    def _needs_host(instance, action):
        if not instance.host:
            raise exception.InstanceActionInvalidState(
                action=action, instance_uuid=instance.uuid,
                attr='vm_state', state=instance.vm_state)

    def create_image(self, context, instance, name, metadata=None,
                     check_metadata_quota=True):
        """Snapshot ``instance`` into a new image ``name`` with the extra
        properties ``metadata``; returns the image (queued). 403 past the
        ``metadata_items`` quota (unless ``check_metadata_quota`` is
        False: Nova's API stopped counting them at 2.39), 409 in a state
        Nova refuses."""
        self._check_pins(instance, CREATE_IMAGE)
        self._needs_host(instance, CREATE_IMAGE)
        action_api.check_state(instance, CREATE_IMAGE, SNAPSHOT_VM_STATES)
        if check_metadata_quota:
            _check_metadata_quota(context, instance, metadata or {})
        image = self._start(context, instance, CREATE_IMAGE,
                            SNAPSHOT_VM_STATES, _T.IMAGE_SNAPSHOT, name,
                            metadata)
        self.compute_rpcapi.snapshot_instance(context, instance, image.id)
        return image

    def backup(self, context, instance, name, backup_type, rotation,
               metadata=None, check_metadata_quota=True):
        """Back ``instance`` up into a new image ``name`` (image_type
        backup, with ``backup_type``), keeping only the newest
        ``rotation`` backups of that type once it is taken; returns the
        image (queued). 403 and 409 as ``create_image``; 409 too while
        the computes are pinned below RPC 1.8."""
        if not self.compute_rpcapi.can_send_backup():
            raise exception.ComputeTooOldForAction(
                action=CREATE_BACKUP, instance_uuid=instance.uuid,
                version=compute_rpcapi.BACKUP_VERSION)
        self._needs_host(instance, CREATE_BACKUP)
        action_api.check_state(instance, CREATE_BACKUP, SNAPSHOT_VM_STATES)
        if check_metadata_quota:
            _check_metadata_quota(context, instance, metadata or {})
        properties = dict(metadata or {}, backup_type=backup_type)
        image = self._start(context, instance, CREATE_BACKUP,
                            SNAPSHOT_VM_STATES, _T.IMAGE_BACKUP, name,
                            properties, image_type='backup')
        self.compute_rpcapi.backup_instance(context, instance, image.id,
                                            backup_type, rotation)
        return image

    def shelve(self, context, instance, clean_shutdown=True):
        """Start shelving ``instance`` into the image "<name>-shelved";
        409 when locked or in a state Nova refuses."""
        action_api.check_lock(context, instance)
        self._check_pins(instance, SHELVE)
        self._needs_host(instance, SHELVE)
        action_api.check_state(instance, SHELVE, SHELVE_VM_STATES)
        image = self._start(context, instance, SHELVE, SHELVE_VM_STATES,
                            _T.SHELVING,
                            '%s-shelved' % instance.display_name, None)
        self.compute_rpcapi.shelve_instance(context, instance, image.id,
                                            clean_shutdown=clean_shutdown)

    def _start(self, context, instance, action, vm_states, task_state,
               name, metadata, image_type='snapshot'):
        """Register the queued image, then set the task (the image is
        deleted again if that is refused) and record the action."""
        image = objects.Image.create_snapshot(
            context, name, instance.project_id,
            *_snapshot_sizes(context, instance),
            properties=_snapshot_properties(context, instance, metadata,
                                            image_type))
        try:
            action_api.start_task(instance, action, vm_states, task_state)
        except Exception:
            objects.Image.delete_by_id(context, image.id)
            raise
        action_api.record_action(context, instance, action)
        return image

    def shelve_offload(self, context, instance, clean_shutdown=True):
        """Offload a SHELVED ``instance`` now (409 otherwise)."""
        action_api.check_lock(context, instance)
        self._check_pins(instance, SHELVE_OFFLOAD)
        self._needs_host(instance, SHELVE_OFFLOAD)
        action_api.start_task(instance, SHELVE_OFFLOAD, (_V.SHELVED,),
                              _T.SHELVING_OFFLOADING)
        action_api.record_action(context, instance, SHELVE_OFFLOAD)
        self.compute_rpcapi.shelve_offload_instance(
            context, instance, clean_shutdown=clean_shutdown)

    def unshelve(self, context, instance, availability_zone=None,
                 host=None, unpin_zone=False):
        """Start unshelving ``instance``: where it is if SHELVED, through
        the scheduler (in ``availability_zone``, on ``host``) if offloaded;
        ``unpin_zone`` (2.91's null zone) frees it of the zone it was
        created in. 400 for an unknown host or zone; 409 when locked, not
        shelved, given a zone or host while SHELVED, or given a host
        outside the zone the server is pinned to."""
        action_api.check_lock(context, instance)
        self._check_pins(instance, UNSHELVE, conductor=True)
        action_api.check_state(instance, UNSHELVE, UNSHELVE_VM_STATES)
        offloaded = instance.vm_state == _V.SHELVED_OFFLOADED
        if (availability_zone or host or unpin_zone) and not offloaded:
            raise exception.UnshelveInstanceInvalidState(
                instance_uuid=instance.uuid, state='SHELVED')
        if availability_zone or host or unpin_zone:
            self._check_placement(context, instance, availability_zone,
                                  host, unpin_zone)
        action_api.start_task(instance, UNSHELVE, UNSHELVE_VM_STATES,
                              _T.UNSHELVING)
        action_api.record_action(context, instance, UNSHELVE)
        if offloaded:
            self.conductor_rpcapi.unshelve_instance(
                context, instance, availability_zone=availability_zone,
                host=host)
        else:
            self.compute_rpcapi.unshelve_instance(context, instance,
                                                  instance.host)

    @staticmethod
    def _check_placement(context, instance, zone, host, unpin_zone):
        """Check the zone and host asked for against the cloud's zones
        and the server's; an unpinned zone is saved in its request spec
        (the conductor then schedules it anywhere)."""
        zones = _zones(context)
        if zone and zone not in _available(zones):
            raise exception.InvalidRequest(
                reason='The requested availability zone is not available')
        spec = objects.RequestSpec.get_by_instance_uuid(context,
                                                        instance.uuid)
        if unpin_zone:
            spec.availability_zone = None
            spec.save()
        if host is None:
            return
        if host not in zones:
            raise exception.InvalidInput(reason=exception.ComputeHostNotFound(
                host=host).format_message())
        wanted = zone or spec.availability_zone
        if wanted and zones[host][0] != wanted:
            raise exception.UnshelveHostNotInAZ(host=host,
                                                availability_zone=wanted)


def _zones(context):
    """{host: (zone, disabled)} of every compute service. A disabled
    host is still a host one may name: as in Nova, the scheduler then
    refuses it (the ``compute_status_filter`` prefilter: its provider
    has the COMPUTE_STATUS_DISABLED trait) and the server stays
    offloaded with an Error event, rather than the API answering 400."""
    by_host = availability_zones.host_zones(
        objects.AggregateList.get_all(context))
    return {service.host: (availability_zones.service_zone(service, by_host),
                           service.disabled)
            for service in objects.ServiceList.get_all(context)
            if service.binary == COMPUTE_BINARY}


def _available(zones):
    """The zones with at least one enabled compute service."""
    return {zone for zone, disabled in zones.values() if not disabled}


def _base_image(context, instance):
    try:
        return image_api.get(context.elevated(), instance.image_ref)
    except exception.ImageNotFound:
        return None


def _snapshot_sizes(context, instance):
    """(min_disk, min_ram) of a snapshot, as Nova records them: the base
    image's, the root disk at least the flavor's."""
    base = _base_image(context, instance) or {}
    return (max(base.get('min_disk', 0), instance.flavor.root_gb),
            base.get('min_ram', 0))


def _snapshot_properties(context, instance, metadata, image_type):
    """The inherited base image properties, Nova's snapshot properties
    (``image_type`` snapshot or backup), then the caller's
    ``metadata``."""
    base = _base_image(context, instance) or {}
    properties = {key: value
                  for key, value in (base.get('properties') or {}).items()
                  if key not in _NOT_INHERITED}
    properties.update({'instance_uuid': instance.uuid,
                       'user_id': str(context.user_id),
                       'image_type': image_type,
                       'base_image_ref': instance.image_ref or ''})
    properties.update(metadata or {})
    return properties


def _check_metadata_quota(context, instance, metadata):
    """403 when ``metadata`` has more items than ``metadata_items``
    allows (Nova counts a snapshot's metadata against it)."""
    _project, user = quota_limits.get_limits(
        context, instance.project_id, instance.user_id, context.quota_class)
    allowed = user['metadata_items']
    if allowed != -1 and len(metadata) > allowed:
        raise exception.ImageMetadataLimitExceeded(requested=len(metadata),
                                                   allowed=allowed)
