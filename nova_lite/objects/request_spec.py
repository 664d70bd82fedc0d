"""RequestSpec: everything the scheduler is told about a boot request.

One is stored per instance (its ``instance_uuid``); the one sent to the
scheduler for a multi-instance request has ``num_instances`` > 1.
"""

from oslo_serialization import jsonutils
from oslo_utils import versionutils
import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite.db import queries
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import fields

# Fields that describe one scheduling attempt rather than the request.
_NOT_PERSISTED = ('id', 'ignore_hosts', 'retry', 'requested_destination')
# Of the server group, only what identifies it is stored: its members and
# their hosts are read again before each scheduling.
_GROUP_NOT_PERSISTED = ('members', 'hosts')
# The plain fields the API's server views show (get_shown_fields).
SHOWN_FIELDS = ('availability_zone', 'scheduler_hints')
# Instance uuids per query of get_shown_fields (bound parameter limits).
_READ_BATCH = 500


@base.NovaLiteObjectRegistry.register
class SchedulerRetries(base.NovaLiteObject):
    """The build attempts of one instance so far.

    ``num_attempts`` counts the hosts tried, ``hosts`` lists them as
    [host, node] pairs (the one being tried included), as RetryFilter
    reads them.
    """
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'num_attempts': fields.IntegerField(default=0),
        'hosts': fields.ListOfListsOfStringsField(default=[]),
    }


@base.NovaLiteObjectRegistry.register
class RequestSpec(base.NovaLiteObject):
    # Version 1.0: Initial version
    # Version 1.1: instance_group, retry, is_bfv; ImageMeta 1.1
    # Version 1.2: requested_destination
    VERSION = '1.2'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'instance_uuid': fields.UUIDField(),
        'project_id': fields.StringField(),
        'user_id': fields.StringField(),
        'num_instances': fields.IntegerField(default=1),
        'flavor': fields.ObjectField('Flavor'),
        'image': fields.ObjectField('ImageMeta'),
        'availability_zone': fields.StringField(nullable=True),
        'scheduler_hints': fields.DictOfListOfStringsField(default={}),
        'ignore_hosts': fields.ListOfStringsField(nullable=True),
        'force_hosts': fields.ListOfStringsField(nullable=True),
        'force_nodes': fields.ListOfStringsField(nullable=True),
        # The server group of the request's instances, with ``members``
        # and ``hosts`` filled by the conductor before scheduling.
        'instance_group': fields.ObjectField('InstanceGroup', nullable=True,
                                             default=None),
        'retry': fields.ObjectField('SchedulerRetries', nullable=True,
                                    default=None),
        # Booted from a volume: always False here (no block storage), kept
        # for filters written against Nova.
        'is_bfv': fields.BooleanField(default=False),
        # The host (and node) an administrator named for a move: the
        # only candidates, still passed through every filter (unlike
        # force_hosts). {'host': ..., 'node': ...}; one move's, not kept.
        'requested_destination': fields.DictOfNullableStringsField(
            nullable=True, default=None),
    }

    # The child versions each version carries, for backports made without
    # a version manifest (fields absent from a version are dropped).
    obj_relationships = {
        'flavor': [('1.0', '1.0')],
        'image': [('1.0', '1.0'), ('1.1', '1.1')],
        'instance_group': [('1.1', '1.0')],
        'retry': [('1.1', '1.0')],
    }

    def requested_host(self):
        """The host named by ``requested_destination``, or None."""
        if not self.obj_attr_is_set('requested_destination'):
            return None
        return (self.requested_destination or {}).get('host')

    def requested_node(self):
        """The node named by ``requested_destination``, or None."""
        if not self.obj_attr_is_set('requested_destination'):
            return None
        return (self.requested_destination or {}).get('node')

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        version = versionutils.convert_version_to_tuple(target_version)
        if version < (1, 1):
            for name in ('instance_group', 'retry', 'is_bfv'):
                primitive.pop(name, None)
        if version < (1, 2):
            primitive.pop('requested_destination', None)

    def get_scheduler_hint(self, name, default=None):
        """A hint's value: a one-item list's item, else the list."""
        if not self.obj_attr_is_set('scheduler_hints'):
            return default
        value = self.scheduler_hints.get(name)
        if value is None:
            return default
        return value[0] if len(value) == 1 else value

    # Flavor shortcuts, as Nova's RequestSpec has them, so filters written
    # against Nova (spec_obj.memory_mb, ...) port unchanged.
    vcpus = property(lambda self: self.flavor.vcpus)
    memory_mb = property(lambda self: self.flavor.memory_mb)
    root_gb = property(lambda self: self.flavor.root_gb)
    ephemeral_gb = property(lambda self: self.flavor.ephemeral_gb)
    swap = property(lambda self: self.flavor.swap)

    @property
    def resources(self):
        """{resource_class: amount} one instance of this request needs."""
        flavor = self.flavor
        swap_gb = (flavor.swap + 1023) // 1024
        disk = flavor.root_gb + flavor.ephemeral_gb + swap_gb
        wanted = {'VCPU': flavor.vcpus, 'MEMORY_MB': flavor.memory_mb,
                  'DISK_GB': disk}
        return {rc: amount for rc, amount in wanted.items() if amount}

    def _to_json(self):
        primitive = self.obj_to_primitive()
        data = primitive['nova_lite_object.data']
        for name in _NOT_PERSISTED:
            data.pop(name, None)
        group = data.get('instance_group')
        if group:
            _strip(group, _GROUP_NOT_PERSISTED)
        changes = primitive.get('nova_lite_object.changes')
        if changes:
            primitive['nova_lite_object.changes'] = [
                c for c in changes if c not in _NOT_PERSISTED]
        return jsonutils.dumps(primitive)

    @classmethod
    def _from_db_row(cls, context, row):
        spec = cls.obj_from_primitive(jsonutils.loads(row.spec))
        spec.id = row.id
        spec._context = context
        spec.obj_reset_changes(recursive=True)
        return spec

    @staticmethod
    @db_api.reader
    def _get_row(context, instance_uuid):
        row = context.session.scalars(sa.select(models.RequestSpec).filter_by(
            instance_uuid=instance_uuid)).first()
        if row is None:
            raise exception.RequestSpecNotFound(instance_uuid=instance_uuid)
        return row

    @classmethod
    @base.remotable
    def get_by_instance_uuid(cls, context, instance_uuid):
        return cls._from_db_row(context, cls._get_row(context, instance_uuid))

    @staticmethod
    @db_api.reader
    def _get_spec_texts(context, instance_uuids):
        return context.session.execute(
            sa.select(models.RequestSpec.instance_uuid,
                      models.RequestSpec.spec).where(
                models.RequestSpec.instance_uuid.in_(instance_uuids))).all()

    @classmethod
    def get_shown_fields(cls, context, instance_uuids,
                         names=SHOWN_FIELDS):
        """{instance_uuid: {name: value}} of the stored specs'
        ``names`` (plain values, no objects built: the API's server
        views read them for whole lists). A server without a spec is
        left out. Not remotable: only the API, which reads the DB,
        calls it."""
        shown = {}
        uuids = list(dict.fromkeys(instance_uuids))
        for start in range(0, len(uuids), _READ_BATCH):
            rows = cls._get_spec_texts(context,
                                       uuids[start:start + _READ_BATCH])
            for instance_uuid, text in rows:
                data = jsonutils.loads(text).get('nova_lite_object.data', {})
                shown[instance_uuid] = {name: data.get(name)
                                        for name in names}
        return shown

    @staticmethod
    @db_api.writer
    def _create_in_db(context, instance_uuid, spec):
        row = models.RequestSpec(instance_uuid=instance_uuid, spec=spec)
        context.session.add(row)
        context.session.flush()
        return row.id

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        self.id = self._create_in_db(self._context, self.instance_uuid,
                                     self._to_json())
        self.obj_reset_changes(recursive=True)

    @staticmethod
    def create_all_in_session(session, specs):
        """Write the new ``specs`` in the caller's transaction with one
        Core INSERT (the conductor's provisioning, which needs neither
        their ids nor their objects afterwards)."""
        for spec in specs:
            if spec.obj_attr_is_set('id'):
                raise exception.ObjectActionError(action='create',
                                                  reason='already created')
        queries.insert_rows(session, models.RequestSpec, [
            {'instance_uuid': spec.instance_uuid, 'spec': spec._to_json()}
            for spec in specs])

    @staticmethod
    @db_api.writer
    def _save_in_db(context, spec_id, spec):
        context.session.execute(sa.update(models.RequestSpec).where(
            models.RequestSpec.id == spec_id).values(spec=spec))

    @base.remotable
    def save(self):
        self._save_in_db(self._context, self.id, self._to_json())
        self.obj_reset_changes(recursive=True)

    def record_attempt(self, host, node):
        """Count a build attempt on (host, node) in ``retry``."""
        retry = self.retry if self.obj_attr_is_set('retry') else None
        if retry is None:
            retry = SchedulerRetries(num_attempts=0, hosts=[])
        retry.num_attempts += 1
        retry.hosts = list(retry.hosts) + [[host, node]]
        self.retry = retry

    def copy_for_instance(self, instance_uuid):
        """A copy describing one instance of a multi-instance request."""
        spec = self.obj_clone()
        if spec.obj_attr_is_set('id'):
            del spec.id
        spec.instance_uuid = instance_uuid
        spec.num_instances = 1
        return spec

    def for_compute(self, instance_uuid):
        """The part of this request a compute needs to build
        ``instance_uuid``: the image for its driver and the attempts so
        far, which it hands back with a failed build (the conductor then
        claims an alternate and casts again, reading no more). Neither
        the flavor (the instance has it), the hints nor the server group
        are cast and read again at the compute. The attempts are its own
        copy; the image is shared, never changed."""
        spec = RequestSpec(instance_uuid=instance_uuid, num_instances=1)
        if self.obj_attr_is_set('image'):
            spec.image = self.image
        if self.obj_attr_is_set('retry') and self.retry is not None:
            spec.retry = self.retry.obj_clone()
        return spec


def _strip(primitive, names):
    """Remove fields ``names`` from an object primitive."""
    data = primitive.get('nova_lite_object.data', {})
    for name in names:
        data.pop(name, None)
    changes = primitive.get('nova_lite_object.changes')
    if changes:
        primitive['nova_lite_object.changes'] = [
            c for c in changes if c not in names]
