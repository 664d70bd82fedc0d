"""The compute API, API side: what the REST handlers ask of the cloud.

It checks a request against its flavor and image, then hands the writes
to the conductor (the API process only reads the database) and the work
to the services: ``create`` asks the conductor to provision the records
(a call, so quota and database errors reach the user) and then to build
(a cast); ``delete`` marks the instance deleting and casts to its compute,
or deletes it here when no compute will.

Reads use the objects' remotable class methods, which run in this
process; ``save``, ``create`` and ``destroy`` go through the conductor by
themselves (see nova_lite/conductor/api.py).
"""

import copy
import string

from oslo_log import log as logging
from oslo_utils import excutils
from oslo_utils import timeutils
from oslo_utils import uuidutils

from nova_lite.compute import action_api
from nova_lite.compute import rpc_clients
from nova_lite.conductor import api as conductor_view
from nova_lite.conf import CONF
from nova_lite import crypto
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite import rpc

LOG = logging.getLogger(__name__)

COMPUTE_BINARY = 'nova-lite-compute'
# Nova's instance action for the confirm a delete makes first.
CONFIRM_RESIZE = 'confirmResize'
# The moves that leave a copy of the VM on their source until confirmed
# or reverted, and their statuses while that copy may be there.
COLD_MOVE_TYPES = ('resize', 'migration')
SOURCE_COPY_STATUSES = ('migrating', 'post-migrating', 'finished',
                        'confirming', 'reverting')
# A delete may start from any task state but its own: it interrupts a
# build at any point (the conductor and compute notice the deleting task
# state or the missing record and stop).
# So may a server action (the compute notices the deleting task state
# when it saves and leaves the instance to the delete).
# A delete asked again of a server deleting for more than [conductor]
# delete_resend_after seconds is sent again (the first may have been
# lost); a conductor does the same unasked (conductor/tasks/
# stuck_deletes.py).


def _deleting_for(instance, seconds):
    """True if ``instance`` was last updated more than ``seconds`` ago."""
    stamp = instance.updated_at or instance.created_at
    if stamp is None:
        return False
    if stamp.tzinfo is not None:
        stamp = stamp.replace(tzinfo=None)
    now = timeutils.utcnow().replace(tzinfo=None)
    return (now - stamp).total_seconds() > seconds


DELETABLE_TASK_STATES = [None, fields.TaskState.SCHEDULING,
                         fields.TaskState.SPAWNING] + list(
    action_api.POWER_TASK_STATES) + [
    # A snapshot or shelve in progress stops at its next conditional
    # save and deletes its unfinished image (compute/shelve.py).
    fields.TaskState.IMAGE_SNAPSHOT, fields.TaskState.IMAGE_PENDING_UPLOAD,
    fields.TaskState.IMAGE_UPLOADING, fields.TaskState.SHELVING,
    fields.TaskState.SHELVING_IMAGE_PENDING_UPLOAD,
    fields.TaskState.SHELVING_IMAGE_UPLOADING,
    fields.TaskState.SHELVING_OFFLOADING, fields.TaskState.UNSHELVING]


def _reservation_id():
    alphabet = string.ascii_lowercase + string.digits
    return 'r-' + crypto.random_string(alphabet, 8)


def scheduler_hints_as_lists(hints):
    """{name: [str, ...]}: the RequestSpec's form of the request's hints."""
    result = {}
    for name, value in (hints or {}).items():
        values = value if isinstance(value, (list, tuple)) else [value]
        result[str(name)] = [str(v) for v in values]
    return result


class API(rpc_clients.RPCClients):
    """Server life cycle for the API handlers (RPC clients made on first
    use, see ``rpc_clients``)."""

    @property
    def conductor_api(self):
        return self.conductor_rpcapi

    @property
    def scheduler_api(self):
        return self.scheduler_rpcapi

    # -- create ------------------------------------------------------

    @staticmethod
    def check_flavor_and_image(flavor, image):
        """Raise 400s when the flavor is disabled or too small for the
        image, or the image is not active."""
        if flavor.disabled:
            raise exception.FlavorNotFoundForBuild(flavor_id=flavor.flavorid)
        if image.get('status', 'active') != 'active':
            raise exception.ImageNotActive(image_id=image['id'])
        min_ram = image.get('min_ram') or 0
        if flavor.memory_mb < min_ram:
            raise exception.FlavorMemoryTooSmall(min_ram=min_ram)
        min_disk = image.get('min_disk') or 0
        # A root_gb of 0 means "as large as the image": no size to check.
        if flavor.root_gb and flavor.root_gb < min_disk:
            raise exception.FlavorDiskTooSmall(min_disk=min_disk)

    def create(self, context, flavor, image_meta, name, min_count=1,
               max_count=1, metadata=None, key_name=None,
               availability_zone=None, scheduler_hints=None,
               forced_host=None, forced_node=None, description=None,
               tags=None, trusted_certs=None, requested_destination=None,
               hostname=None, user_data=None):
        """Provision and start building servers, each tagged with
        ``tags`` when given and keeping ``trusted_certs`` (the ids of
        the certificates the user trusts; kept and shown, not checked:
        nova_lite verifies no image signatures) and ``hostname`` (one
        server only; else the conductor derives it from the name) and
        ``user_data`` (base64; kept and shown, never sent to computes).
        ``requested_destination`` is an administrator's (host, node),
        either may be None: the only candidates, still checked by every
        filter (unlike a forced host).

        ``image_meta`` is the registry's image dict. Returns
        (InstanceList created, reservation_id). Raises the conductor's
        errors (TooManyInstances 403, ...) and 400s for a bad flavor or
        image; the build itself runs after this returns.
        """
        self.check_flavor_and_image(flavor, image_meta)
        if not 1 <= min_count <= max_count:
            raise exception.InvalidInput(
                reason='min_count must be at least 1 and at most '
                       'max_count')
        reservation_id = _reservation_id()
        instance = self._instance_template(
            context, flavor, image_meta, name, metadata, key_name,
            availability_zone, reservation_id)
        instance.description = description
        instance.trusted_certs = trusted_certs
        instance.user_data = user_data
        if hostname:
            instance.hostname = hostname
        spec = self._request_spec(context, flavor, image_meta, max_count,
                                  availability_zone, scheduler_hints,
                                  forced_host, forced_node)
        host, node = requested_destination or (None, None)
        if host or node:
            spec.requested_destination = {'host': host, 'node': node}
        group = self._server_group(context, scheduler_hints)
        if group is not None:
            spec.instance_group = group
            spec.scheduler_hints = dict(spec.scheduler_hints,
                                        group=[group.uuid])
        # The conductor starts the build once it answered (conductor RPC
        # 1.5); pinned below, the client casts build_instances after.
        instances = conductor_view.provision_instances(
            self.conductor_api, context, instance, spec, min_count,
            max_count)
        if tags:
            self._tag_new(context, instances, tags)
        return instances, reservation_id

    def _tag_new(self, context, instances, tags):
        """Write the tags of servers just provisioned (Nova too writes
        them after the instance records). If that fails the servers are
        deleted, so a failed request leaves no untagged server behind,
        and the error is raised."""
        try:
            for instance in instances:
                objects.TagList.create(context, instance.uuid, tags)
        except Exception:
            with excutils.save_and_reraise_exception():
                for instance in instances:
                    try:
                        self.delete(context, instance)
                    except Exception:
                        LOG.exception('Could not delete %s, which lost '
                                      'its tags', instance.uuid)

    @staticmethod
    def _instance_template(context, flavor, image, name, metadata,
                           key_name, availability_zone, reservation_id):
        return objects.Instance(
            context=context,
            project_id=context.project_id, user_id=context.user_id,
            display_name=name, image_ref=image['id'], flavor=flavor,
            vcpus=flavor.vcpus, memory_mb=flavor.memory_mb,
            root_gb=flavor.root_gb, ephemeral_gb=flavor.ephemeral_gb,
            vm_state=fields.VMState.BUILDING,
            task_state=fields.TaskState.SCHEDULING, power_state=0,
            metadata=dict(metadata or {}),
            availability_zone=availability_zone, key_name=key_name,
            reservation_id=reservation_id, host=None, node=None)

    @staticmethod
    def _request_spec(context, flavor, image, max_count, availability_zone,
                      scheduler_hints, forced_host, forced_node):
        spec = objects.RequestSpec(
            context=context,
            project_id=context.project_id, user_id=context.user_id,
            num_instances=max_count, flavor=flavor,
            image=objects.ImageMeta.from_image(image),
            availability_zone=availability_zone,
            scheduler_hints=scheduler_hints_as_lists(scheduler_hints),
            ignore_hosts=None,
            force_hosts=[forced_host] if forced_host else None,
            force_nodes=[forced_node] if forced_node else None,
            instance_group=None, is_bfv=False)
        return spec

    @staticmethod
    def _server_group(context, hints):
        """The server group the hint ``group`` names (a uuid or a name,
        in the caller's project unless they are an administrator), or
        None. Raises InstanceGroupHintInvalid (400) for one it cannot
        find."""
        value = (hints or {}).get('group')
        values = value if isinstance(value, (list, tuple)) else [value]
        values = [str(v) for v in values if v]
        if not values:
            return None
        if len(values) > 1:
            raise exception.InstanceGroupHintInvalid(group=values)
        name = values[0]
        try:
            if uuidutils.is_uuid_like(name):
                group = objects.InstanceGroup.get_by_uuid(context, name)
            else:
                group = objects.InstanceGroup.get_by_name(
                    context, name, context.project_id)
        except exception.InstanceGroupNotFound:
            raise exception.InstanceGroupHintInvalid(group=name)
        if group.project_id != context.project_id and not context.is_admin:
            raise exception.InstanceGroupHintInvalid(group=name)
        return group

    # -- delete ------------------------------------------------------

    def delete(self, context, instance):
        """Start deleting ``instance``; a repeated delete is accepted.

        Raises InstanceIsLocked (409) for a locked server unless the
        caller is an administrator, UnexpectedTaskStateError (409) if the
        instance moved to a task that cannot be interrupted,
        InstanceNotFound (404) if it is already gone.
        """
        action_api.check_lock(context, instance)
        if instance.task_state == fields.TaskState.DELETING:
            resend_after = CONF.conductor.delete_resend_after
            if not _deleting_for(instance, resend_after):
                LOG.info('Instance %s is already being deleted',
                         instance.uuid)
                return
            # Its first delete may have been lost (the answer to its save
            # never came, so nothing was cast): send it again; deleting
            # twice finds the VM and the record gone.
            LOG.warning('Instance %s has been deleting for more than %d s; '
                        'sending its delete again', instance.uuid,
                        resend_after)
            self._send_delete(context, instance)
            return
        # Only a move waiting for its decision is confirmed; one still
        # in flight is interrupted as before.
        resized = (instance.vm_state == fields.VMState.RESIZED
                   and instance.task_state is None)
        instance.task_state = fields.TaskState.DELETING
        try:
            instance.save(expected_task_state=DELETABLE_TASK_STATES)
        except exception.UnexpectedTaskStateError as exc:
            if exc.kwargs.get('actual') == fields.TaskState.DELETING:
                return
            raise
        _delete_shelved_image(context, instance)
        # save() refreshed the instance: host is where it is now.
        if (resized and instance.host is not None and
                self._compute_is_up(context, instance.host) and
                self._confirm_on_deleting(context, instance)):
            return
        self._send_delete(context, instance)

    def _send_delete(self, context, instance):
        """Cast the delete to the instance's compute, or delete it here
        when no compute will act."""
        if instance.host is None or not self._compute_is_up(
                context, instance.host):
            self._local_delete(context, instance)
            return
        try:
            self.compute_rpcapi.terminate_instance(context, instance)
        except rpc.REFUSED as exc:
            # Recorded (deleting) but not sent: a conductor sends it once
            # the bus takes messages again, so the delete is accepted.
            LOG.warning('The bus refused the delete of instance %s (%s); '
                        'a conductor will send it again within [conductor] '
                        'delete_resend_after seconds', instance.uuid, exc)

    def _confirm_on_deleting(self, context, instance):
        """As Nova, a server waiting in VERIFY_RESIZE is confirmed before
        it goes: the conductor frees the source (allocations, VM), marks
        the migration confirmed, then casts the delete to the
        destination. True if the conductor took the delete over."""
        if not self.conductor_api.can_send_moves():
            return False
        try:
            migration = objects.Migration.get_by_instance_and_status(
                context, instance.uuid, 'finished')
        except exception.MigrationNotFound:
            return False
        migration.status = 'confirming'
        migration.save()
        action_api.record_action(context, instance, CONFIRM_RESIZE)
        self.conductor_api.confirm_resize(context, instance, migration)
        return True

    @staticmethod
    def _compute_is_up(context, host):
        try:
            service = objects.Service.get_by_host_and_binary(
                context, host, COMPUTE_BINARY)
        except exception.ServiceNotFound:
            return False
        return service.is_up

    def _local_delete(self, context, instance):
        """No compute will act: remove the record here. The conductor's
        destroy frees the instance's allocations and those of a move it
        had not settled (its source host), and settles that migration,
        in one transaction (conductor/tasks/destroy.py); a down compute
        finds the instance gone when it comes back and removes its VM
        (compute/recovery.py). A move's source that is up is told now to
        remove its copy, as Nova's delete confirms on the source."""
        LOG.info('Deleting instance %s locally (host %s)', instance.uuid,
                 instance.host)
        copies = self._source_copies(context, instance)
        if copies:
            # Nova's record of the confirm a delete makes (the source's
            # removal of its copy is an event of it).
            try:
                action_api.record_action(context, instance, CONFIRM_RESIZE)
            except Exception as exc:
                LOG.info('No confirmResize action recorded for %s: %s',
                         instance.uuid, exc)
        try:
            instance.destroy()
        except exception.InstanceNotFound:
            return
        for migration in copies:
            self._drop_source_copy(context, instance, migration)

    @staticmethod
    def _source_copies(context, instance):
        """The moves of ``instance`` whose source may keep a copy of the
        VM on another host than the instance's (best effort: a read
        that fails leaves the copy to the source's start-up)."""
        try:
            found = objects.MigrationList.get_by_filters(context, {
                'instance_uuid': instance.uuid,
                'migration_type': list(COLD_MOVE_TYPES),
                'status': list(SOURCE_COPY_STATUSES)})
        except Exception:
            LOG.exception('Cannot read the moves of instance %s',
                          instance.uuid)
            return []
        return [m for m in found if m.source_compute
                and m.source_compute != instance.host]

    def _drop_source_copy(self, context, instance, migration):
        if (not self.compute_rpcapi.can_send_moves() or
                not self._compute_is_up(context, migration.source_compute)):
            LOG.info('The source %s of the move of deleted instance %s is '
                     'down: it removes its copy when it starts',
                     migration.source_compute, instance.uuid)
            return
        try:
            self.compute_rpcapi.confirm_resize(context, instance, migration)
        except rpc.REFUSED as exc:
            LOG.warning('The bus refused telling %s to remove its copy of '
                        'deleted instance %s (%s); it does when it '
                        'restarts', migration.source_compute, instance.uuid,
                        exc)

    # -- update ------------------------------------------------------

    @staticmethod
    def update(context, instance, values):
        """Rename ``instance`` and/or set its description or hostname
        (``values``: name, description, hostname; other keys are
        ignored). Locked servers refuse
        non-admins (409). Recorded as the action "update"."""
        changes = {}
        if 'name' in values:
            changes['display_name'] = values['name']
        if 'description' in values:
            changes['description'] = values['description']
        if 'hostname' in values:
            changes['hostname'] = values['hostname']
        action_api.check_lock(context, instance)
        if not changes:
            return instance
        for name, value in changes.items():
            setattr(instance, name, value)
        instance.save()
        action_api.record_action(context, instance, action_api.UPDATE)
        return instance

    # -- reads -------------------------------------------------------

    @staticmethod
    def get(context, instance_id, expected_attrs=None):
        """The instance, if the caller's project owns it or they are an
        administrator; else InstanceNotFound (404)."""
        if not uuidutils.is_uuid_like(instance_id):
            raise exception.InstanceNotFound(instance_id=instance_id)
        instance = objects.Instance.get_by_uuid(
            context, instance_id, expected_attrs=expected_attrs)
        if not context.is_admin and instance.project_id != context.project_id:
            raise exception.InstanceNotFound(instance_id=instance_id)
        return instance

    @staticmethod
    def get_all(context, filters=None, limit=None, marker=None,
                sort_key='created_at', sort_dir='desc', expected_attrs=None,
                all_tenants=False):
        """Instances matching ``filters`` (InstanceList filter keys).

        Without ``all_tenants`` only the caller's project is listed. A
        ``vm_state`` filter of deleted, or a changes-since or
        changes-before window, reads soft-deleted rows too.
        """
        filters = dict(filters or {})
        if not all_tenants:
            filters['project_id'] = context.project_id
        if (fields.VMState.DELETED in (filters.get('vm_state') or ())
                or filters.get('changes-since') is not None
                or filters.get('changes-before') is not None):
            context = copy.copy(context)
            context.read_deleted = 'yes'
        return objects.InstanceList.get_by_filters(
            context, filters, sort_key=sort_key, sort_dir=sort_dir,
            limit=limit, marker=marker, expected_attrs=expected_attrs)


def _delete_shelved_image(context, instance):
    """A shelved server being deleted takes its shelved snapshot with it
    (as Nova's delete of a SHELVED or SHELVED_OFFLOADED server does)."""
    if (instance.vm_state not in (fields.VMState.SHELVED,
                                  fields.VMState.SHELVED_OFFLOADED)
            or not instance.shelved_image_id):
        return
    try:
        objects.Image.delete_by_id(context, instance.shelved_image_id)
    except Exception:
        LOG.exception('Deleting the shelved image %s of instance %s failed',
                      instance.shelved_image_id, instance.uuid)
