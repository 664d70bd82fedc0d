"""ComputeNode: what a hypervisor node has, as its compute last reported.

Its uuid is also the uuid of the node's resource provider; capacity the
scheduler decides on comes from the provider's inventories and allocations,
and the descriptive fields here (hypervisor type and version, cpu_info,
stats) feed the filters that look at the host itself.
"""

from oslo_serialization import jsonutils
from oslo_utils import timeutils
from oslo_utils import versionutils
import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite.db import queries
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import fields
from nova_lite.placement import changes as scheduler_changes

# The used figures the API reads from placement: {resource class: field}.
_USED_FIELDS = {'VCPU': 'vcpus_used', 'MEMORY_MB': 'memory_mb_used',
                'DISK_GB': 'local_gb_used'}
# Fields kept as JSON text in their columns (ComputeNode 1.1).
_JSON_FIELDS = ('metrics', 'pci_device_pools', 'numa_topology')


@base.NovaLiteObjectRegistry.register
class ComputeNode(base.NovaLiteObject, base.NovaLiteTimestampObject):
    # Version 1.0: Initial version
    # Version 1.1: metrics, pci_device_pools, numa_topology
    VERSION = '1.1'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'service_id': fields.IntegerField(nullable=True),
        'host': fields.StringField(),
        'hypervisor_hostname': fields.StringField(),
        'vcpus': fields.IntegerField(),
        'memory_mb': fields.IntegerField(),
        'local_gb': fields.IntegerField(),
        'vcpus_used': fields.IntegerField(default=0),
        'memory_mb_used': fields.IntegerField(default=0),
        'local_gb_used': fields.IntegerField(default=0),
        'running_vms': fields.IntegerField(default=0),
        'hypervisor_type': fields.StringField(),
        'hypervisor_version': fields.IntegerField(),
        'cpu_info': fields.StringField(),
        'host_ip': fields.StringField(nullable=True),
        'cpu_allocation_ratio': fields.FloatField(nullable=True),
        'ram_allocation_ratio': fields.FloatField(nullable=True),
        'disk_allocation_ratio': fields.FloatField(nullable=True),
        'stats': fields.DictOfNullableStringsField(default={}),
        # What the driver reports for the filters that look at the host
        # itself (see ``nova_lite.virt.driver``): {metric name: number},
        # [PCI device pool dict], [NUMA cell dict]; None when it has none.
        'metrics': fields.JSONField(nullable=True, default=None),
        'pci_device_pools': fields.JSONField(nullable=True, default=None),
        'numa_topology': fields.JSONField(nullable=True, default=None),
    }
    fields.update(base.NovaLiteTimestampObject.fields)

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        version = versionutils.convert_version_to_tuple(target_version)
        if version < (1, 1):
            for name in _JSON_FIELDS:
                primitive.pop(name, None)

    @staticmethod
    def _from_db_object(context, node, row):
        base.set_all_from_db(node, row, skip=('stats',) + _JSON_FIELDS)
        node.stats = jsonutils.loads(row.stats) if row.stats else {}
        for name in _JSON_FIELDS:
            raw = getattr(row, name)
            setattr(node, name, jsonutils.loads(raw) if raw else None)
        node._context = context
        node.obj_reset_changes()
        return node

    @staticmethod
    def _to_db_values(values):
        if 'stats' in values:
            values['stats'] = jsonutils.dumps(values['stats'] or {})
        for name in _JSON_FIELDS:
            if name in values:
                value = values[name]
                values[name] = (None if value is None
                                else jsonutils.dumps(value))
        return values

    @staticmethod
    @db_api.reader
    def _get_from_db(context, **filters):
        return queries.first_or_raise(
            context.session, models.ComputeNode,
            lambda f: exception.ComputeNodeNotFound(node=queries.describe(f)),
            **filters)

    @classmethod
    @base.remotable
    def get_by_uuid(cls, context, uuid):
        return cls._from_db_object(context, cls(),
                                   cls._get_from_db(context, uuid=uuid))

    @classmethod
    @base.remotable
    def get_by_host_and_nodename(cls, context, host, nodename):
        return cls._from_db_object(
            context, cls(),
            cls._get_from_db(context, host=host,
                             hypervisor_hostname=nodename))

    @classmethod
    def get_by_nodename(cls, context, nodename):
        """The (first) node of that name; ComputeNodeNotFound if none.
        The API's read (not remotable)."""
        return cls._from_db_object(
            context, cls(),
            cls._get_from_db(context, hypervisor_hostname=nodename))

    @staticmethod
    @db_api.writer
    def _create_in_db(context, values):
        row = queries.insert(
            context.session, models.ComputeNode(**values),
            lambda error: exception.Conflict(
                reason='compute node %s already exists' % values.get('uuid')))
        scheduler_changes.note(context.session, [row.uuid])
        return row

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        values = self._to_db_values(self.obj_get_changes())
        self._from_db_object(self._context, self,
                             self._create_in_db(self._context, values))

    @staticmethod
    @db_api.writer
    def _save_in_db(context, node_id, values):
        row = queries.update_and_reload(context.session, models.ComputeNode,
                                        node_id, values)
        scheduler_changes.note(context.session, [row.uuid])
        return row

    @base.remotable
    def save(self):
        values = self._to_db_values(self.obj_get_changes())
        values.pop('id', None)
        if not values:
            return
        values['updated_at'] = timeutils.utcnow().replace(tzinfo=None)
        self._from_db_object(self._context, self,
                             self._save_in_db(self._context, self.id, values))


@base.NovaLiteObjectRegistry.register
class ComputeNodeList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version, ComputeNode <= 1.0
    # Version 1.1: ComputeNode <= 1.1
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('ComputeNode'),
    }
    # Which ComputeNode each version carries, for backports made without
    # a version manifest.
    child_versions = {'1.0': '1.0', '1.1': '1.1'}

    @staticmethod
    @db_api.reader
    def _get_from_db(context, host=None, uuids=None):
        query = sa.select(models.ComputeNode).order_by(models.ComputeNode.id)
        if host is not None:
            query = query.where(models.ComputeNode.host == host)
        if uuids is not None:
            query = query.where(models.ComputeNode.uuid.in_(list(uuids)))
        return context.session.scalars(query).all()

    @classmethod
    @base.remotable
    def get_all(cls, context):
        return cls._from_rows(context, cls._get_from_db(context))

    @classmethod
    @base.remotable
    def get_all_by_host(cls, context, host):
        return cls._from_rows(context, cls._get_from_db(context, host=host))

    @classmethod
    @base.remotable
    def get_all_by_uuids(cls, context, uuids):
        return cls._from_rows(context, cls._get_from_db(context, uuids=uuids))

    @classmethod
    def _from_rows(cls, context, rows):
        return cls(context, objects=[
            ComputeNode._from_db_object(context, ComputeNode(), row)
            for row in rows])

    @classmethod
    def get_all_used_now(cls, context, host=None):
        """The nodes (of ``host``, or all), their used figures those of
        placement now: what is reserved for the host plus what is
        allocated there, as the compute's report counts them. The
        compute's report is periodic and lags claims by up to
        ``update_resources_interval``; placement is written with each
        claim. A node without a provider keeps its report. The API's
        read (not remotable)."""
        rows, used = cls._used_now_from_db(context, host)
        nodes = cls._from_rows(context, rows)
        for node in nodes:
            figures = used.get(node.uuid)
            if figures is None:
                continue
            for rc, field in _USED_FIELDS.items():
                setattr(node, field, figures.get(rc, 0))
            node.obj_reset_changes(list(_USED_FIELDS.values()))
        return nodes

    @staticmethod
    @db_api.reader
    def _used_now_from_db(context, host):
        """The node rows and {uuid: {resource class: reserved + used}}
        of their providers, read in one transaction."""
        session = context.session
        rows = ComputeNodeList._get_from_db(context, host=host)
        if not rows:
            return rows, {}
        rp, inv, alloc = (models.ResourceProvider, models.Inventory,
                          models.Allocation)
        node = models.ComputeNode
        in_use = (
            sa.select(sa.func.coalesce(sa.func.sum(alloc.used), 0))
            .where(alloc.resource_provider_id == inv.resource_provider_id,
                   alloc.resource_class == inv.resource_class)
            .scalar_subquery())
        query = (sa.select(rp.uuid, inv.resource_class,
                           inv.reserved + in_use)
                 .join(inv, inv.resource_provider_id == rp.id)
                 # Joined rather than listed: a fleet's uuids would make
                 # one statement of every node's uuid.
                 .join(node, node.uuid == rp.uuid)
                 .where(inv.resource_class.in_(list(_USED_FIELDS))))
        if host is not None:
            query = query.where(node.host == host)
        used = {}
        for uuid, rc, amount in session.execute(query):
            used.setdefault(uuid, {})[rc] = int(amount)
        return rows, used
