"""The compute API for rebuild and evacuate, API side.

``rebuild``: the server is rebuilt on its own host from an image (the
same or a new one), keeping its flavor, allocation and quota. Nova's
checks, in Nova's order: lock, the services' RPC pins, the state
(ACTIVE, SHUTOFF or ERROR, no task), the image (visible, active, fitting
the flavor), the metadata quota and the key pair; then the changed
fields and ``task_state`` rebuilding are saved conditionally, the
instance action recorded and ``conductor/tasks/rebuild.py`` takes over.

``evacuate`` (administrators): the server's compute must be down or
forced down (400 otherwise, ComputeServiceInUse as Nova); a Migration
``evacuation`` (status ``accepted``) is written with the task state and
``conductor/tasks/evacuate.py`` takes over.
"""

from oslo_utils import uuidutils

from nova_lite.compute import action_api
from nova_lite.compute import rpc_clients
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.quota import limits as quota_limits

_T = fields.TaskState
_V = fields.VMState

REBUILD, EVACUATE = 'rebuild', 'evacuate'
# Where Nova lets a rebuild or an evacuation start from.
REBUILD_VM_STATES = (_V.ACTIVE, _V.STOPPED, _V.ERROR)
EVACUATE_VM_STATES = (_V.ACTIVE, _V.STOPPED, _V.ERROR)
COMPUTE_BINARY = 'nova-lite-compute'
# Instance fields a rebuild may change besides the image.
REBUILD_FIELDS = ('display_name', 'metadata', 'description', 'key_name',
                  'hostname', 'trusted_certs', 'user_data')


class RebuildAPI(rpc_clients.RPCClients):
    """Rebuild and evacuate for the API handlers; RPC clients made on
    first use, so tests can replace them."""

    def _check(self, context, instance, action, vm_states):
        """Lock, pins, host and state, each a 409."""
        action_api.check_lock(context, instance)
        if not (self.compute_rpcapi.can_send_rebuild()
                and self.conductor_rpcapi.can_send_rebuild()):
            raise exception.ComputeTooOldForAction(
                action=action, instance_uuid=instance.uuid,
                version=compute_rpcapi.REBUILD_VERSION)
        if not instance.host:
            raise exception.InstanceActionInvalidState(
                action=action, instance_uuid=instance.uuid, attr='vm_state',
                state=instance.vm_state)
        action_api.check_state(instance, action, vm_states)

    def rebuild(self, context, instance, image_ref, changes, new_pass=None,
                preserve_ephemeral=False):
        """Start a rebuild from ``image_ref``; ``changes`` holds the
        instance fields of REBUILD_FIELDS the request sets. 400 for an
        unknown image or one the flavor cannot hold, or an unknown key
        pair; 403 past the metadata quota; 409 for a wrong state."""
        self._check(context, instance, REBUILD, REBUILD_VM_STATES)
        image = _image(context, image_ref, instance.flavor)
        if 'metadata' in changes:
            _check_metadata_quota(context, instance, changes['metadata'])
        if changes.get('key_name') is not None:
            _check_key_name(context, changes['key_name'])
        orig_image_ref = instance.image_ref
        for name, value in changes.items():
            setattr(instance, name, value)
        instance.image_ref = image['id']
        action_api.start_task(instance, REBUILD, REBUILD_VM_STATES,
                              _T.REBUILDING)
        action_api.record_action(context, instance, REBUILD)
        self.conductor_rpcapi.rebuild_instance(
            context, instance, image['id'], orig_image_ref,
            new_pass=new_pass, preserve_ephemeral=preserve_ephemeral)

    def evacuate(self, context, instance, host=None, on_shared_storage=None,
                 new_pass=None, target_state=None):
        """Start the evacuation of ``instance`` from its down compute, to
        ``host`` if given (checked by the filters). 404 for an unknown
        host, 400 for its own or while its compute is up, 409 for a
        wrong state. Returns the Migration."""
        if host is not None:
            _check_compute_host(context, host)
            if host == instance.host:
                raise exception.EvacuateToSameHost()
        self._check(context, instance, EVACUATE, EVACUATE_VM_STATES)
        _check_source_down(context, instance.host)
        migration = _start_evacuation(context, instance)
        action_api.record_action(context, instance, EVACUATE)
        self.conductor_rpcapi.rebuild_instance(
            context, instance, instance.image_ref, instance.image_ref,
            new_pass=new_pass, recreate=True,
            on_shared_storage=on_shared_storage, host=host,
            migration=migration, target_state=target_state)
        return migration


def _image(context, image_ref, flavor):
    try:
        image = image_api.get(context, image_ref)
    except exception.ImageNotFound:
        raise exception.RebuildImageNotFound(image_id=image_ref)
    if image.get('status', 'active') != 'active':
        raise exception.ImageNotActive(image_id=image['id'])
    min_ram = image.get('min_ram') or 0
    if flavor.memory_mb < min_ram:
        raise exception.FlavorMemoryTooSmall(min_ram=min_ram)
    min_disk = image.get('min_disk') or 0
    if flavor.root_gb and flavor.root_gb < min_disk:
        raise exception.FlavorDiskTooSmall(min_disk=min_disk)
    return image


def _check_metadata_quota(context, instance, metadata):
    _project, user = quota_limits.get_limits(
        context, instance.project_id, instance.user_id, context.quota_class)
    allowed = user['metadata_items']
    if allowed != -1 and len(metadata) > allowed:
        raise exception.MetadataLimitExceeded(requested=len(metadata),
                                              allowed=allowed)


def _check_key_name(context, key_name):
    try:
        objects.KeyPair.get_by_name(context, context.user_id, key_name)
    except exception.KeypairNotFound:
        raise exception.InvalidKeypair(reason='Invalid key_name provided.')


def _service(context, host):
    try:
        return objects.Service.get_by_host_and_binary(context, host,
                                                      COMPUTE_BINARY)
    except (exception.ServiceNotFound, exception.HostBinaryNotFound):
        return None


def _check_compute_host(context, host):
    if _service(context, host) is None:
        raise exception.EvacuateHostNotFound(host=host)


def _check_source_down(context, host):
    service = _service(context, host)
    if service is not None and service.is_up:
        raise exception.ComputeServiceInUse(host=host)


def _start_evacuation(context, instance):
    """The task state (a 409 if another task started meanwhile), then
    the Migration (accepted)."""
    action_api.start_task(instance, EVACUATE, EVACUATE_VM_STATES,
                          _T.REBUILDING)
    migration = objects.Migration(
        context, uuid=uuidutils.generate_uuid(),
        source_compute=instance.host, source_node=instance.node,
        status='accepted', migration_type='evacuation',
        instance_uuid=instance.uuid, project_id=instance.project_id,
        user_id=instance.user_id, old_instance_type_id=instance.flavor.id,
        new_instance_type_id=instance.flavor.id, hidden=False,
        cross_cell_move=False)
    migration.create()
    return migration
