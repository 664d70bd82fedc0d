"""Instance and InstanceList: a server and its life cycle.

Instances are soft-deleted. ``save`` writes only changed fields and can be
made conditional on the task or VM state the caller expects, which is how
two actors racing on one instance find out instead of overwriting each
other.
"""

import calendar
import functools
import types

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
from nova_lite.objects import flavor as flavor_obj
from nova_lite.objects import instance_fault
from nova_lite.placement import changes as scheduler_changes

# Attributes loaded only when asked for with expected_attrs.
OPTIONAL_ATTRS = ('fault',)
# Flavors kept as Flavor primitives in JSON columns.
_FLAVOR_ATTRS = ('flavor', 'old_flavor', 'new_flavor')
# The fields of the row values whose attribute names differ.
_FIELD_OF = {'metadata_': 'metadata'}
# Fields of Instance 1.1 (locks, description, resize and shelve).
_FIELDS_1_1 = ('locked', 'locked_by', 'locked_reason', 'description',
               'old_flavor', 'new_flavor', 'shelved_at', 'shelved_image_id',
               'shelved_host')
# What an acorn reader (Instance 1.0) is told of a state it does not know:
# the nearest state it has. It only reads these (a save writes only the
# fields it changed), so nothing lossy is written back.
_ACORN_VM_STATE = {
    fields.VMState.PAUSED: fields.VMState.ACTIVE,
    fields.VMState.SUSPENDED: fields.VMState.ACTIVE,
    fields.VMState.RESCUED: fields.VMState.ACTIVE,
    fields.VMState.RESIZED: fields.VMState.ACTIVE,
    fields.VMState.SHELVED: fields.VMState.STOPPED,
    fields.VMState.SHELVED_OFFLOADED: fields.VMState.STOPPED,
}
# InstanceList filters matched by equality (the server list's 2.83 ones).
_EQUAL_FILTERS = ('availability_zone', 'key_name', 'power_state',
                  'created_at', 'launched_at', 'terminated_at')
_SORT_KEYS = ('created_at', 'display_name', 'updated_at', 'launched_at',
              'id', 'uuid', 'host', 'node', 'vm_state', 'task_state',
              'locked')


def _utcnow():
    return timeutils.utcnow().replace(tzinfo=None)


@base.NovaLiteObjectRegistry.register
class Instance(base.NovaLiteObject, base.NovaLitePersistentObject):
    # Version 1.0: Initial version
    # Version 1.1: locked, locked_by, locked_reason, description,
    #              old_flavor, new_flavor, shelved_at, shelved_image_id,
    #              shelved_host; the vm_states and task_states of server
    #              actions, moves, shelving and backups
    # Version 1.2: trusted_certs
    # Version 1.3: user_data
    VERSION = '1.3'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'project_id': fields.StringField(),
        'user_id': fields.StringField(),
        'display_name': fields.StringField(nullable=True),
        'hostname': fields.StringField(nullable=True),
        'image_ref': fields.StringField(nullable=True),
        'flavor': fields.ObjectField('Flavor'),
        'vcpus': fields.IntegerField(),
        'memory_mb': fields.IntegerField(),
        'root_gb': fields.IntegerField(),
        'ephemeral_gb': fields.IntegerField(),
        'host': fields.StringField(nullable=True),
        'node': fields.StringField(nullable=True),
        'compute_node_uuid': fields.UUIDField(nullable=True),
        'vm_state': fields.VMStateField(),
        'task_state': fields.TaskStateField(nullable=True),
        'power_state': fields.IntegerField(default=0),
        'availability_zone': fields.StringField(nullable=True),
        'key_name': fields.StringField(nullable=True),
        'reservation_id': fields.StringField(nullable=True),
        'launch_index': fields.IntegerField(nullable=True),
        'launched_at': fields.DateTimeField(nullable=True),
        'terminated_at': fields.DateTimeField(nullable=True),
        'metadata': fields.DictOfStringsField(default={}),
        'fault': fields.ObjectField('InstanceFault', nullable=True),
        'locked': fields.BooleanField(default=False),
        # 'owner' or 'admin': who may unlock (Nova's rule).
        'locked_by': fields.StringField(nullable=True),
        'locked_reason': fields.StringField(nullable=True),
        'description': fields.StringField(nullable=True),
        'old_flavor': fields.ObjectField('Flavor', nullable=True),
        'new_flavor': fields.ObjectField('Flavor', nullable=True),
        'shelved_at': fields.DateTimeField(nullable=True),
        'shelved_image_id': fields.StringField(nullable=True),
        'shelved_host': fields.StringField(nullable=True),
        # Ids of the certificates trusted to have signed the image (API
        # 2.63); kept and shown, not checked (no signature verification).
        'trusted_certs': fields.ListOfStringsField(nullable=True),
        # The user data given at create or rebuild (base64, up to 65535
        # characters); kept and shown to administrators (API 2.3), never
        # sent to computes (nova_lite has no metadata service).
        'user_data': fields.StringField(nullable=True),
    }
    fields.update(base.NovaLitePersistentObject.fields)

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        version = versionutils.convert_version_to_tuple(target_version)
        if version < (1, 3):
            primitive.pop('user_data', None)
        if version < (1, 2):
            primitive.pop('trusted_certs', None)
        if version < (1, 1):
            for name in _FIELDS_1_1:
                primitive.pop(name, None)
            vm_state = primitive.get('vm_state')
            if vm_state in _ACORN_VM_STATE:
                primitive['vm_state'] = _ACORN_VM_STATE[vm_state]
            if primitive.get('task_state') not in (
                    None,) + fields.TaskState.ACORN:
                primitive['task_state'] = None

    # save reads the uuid and the changed fields only: through the
    # conductor (RPC 1.5) it is sent those alone.
    obj_sparse_methods = {'save': ('uuid',)}

    # Child versions per version, for backports without a manifest.
    obj_relationships = {'flavor': [('1.0', '1.0'), ('1.1', '1.0'),
                                    ('1.2', '1.0'), ('1.3', '1.0')],
                         'fault': [('1.0', '1.0'), ('1.1', '1.0'),
                                   ('1.2', '1.0'), ('1.3', '1.0')],
                         'old_flavor': [('1.1', '1.0'), ('1.2', '1.0'),
                                        ('1.3', '1.0')],
                         'new_flavor': [('1.1', '1.0'), ('1.2', '1.0'),
                                        ('1.3', '1.0')]}

    @property
    def name(self):
        from nova_lite.conf import CONF
        try:
            return CONF.instance_name_template % self.id
        except (TypeError, ValueError):
            return 'instance-%s' % self.uuid

    @staticmethod
    def _from_db_object(context, instance, row, expected_attrs=None,
                        fault=None, kept=()):
        """Fill ``instance`` from ``row``; ``kept``: the fields whose
        values ``instance`` holds already, as one just written from them
        does: kept, not set (or their JSON parsed) again."""
        skip = _FLAVOR_ATTRS + ('metadata', 'fault', 'deleted',
                                'trusted_certs') + tuple(kept)
        base.set_all_from_db(instance, row, skip=skip)
        if 'trusted_certs' not in kept:
            instance.trusted_certs = (jsonutils.loads(row.trusted_certs)
                                      if row.trusted_certs else None)
        instance.deleted = bool(row.deleted)
        for attr in _FLAVOR_ATTRS:
            value = getattr(row, attr)
            if attr not in kept:
                setattr(instance, attr,
                        flavor_obj.Flavor.obj_from_primitive(
                            jsonutils.loads(value)) if value else None)
        if 'metadata' not in kept:
            instance.metadata = (jsonutils.loads(row.metadata_)
                                 if row.metadata_ else {})
        if 'fault' in (expected_attrs or ()):
            instance.fault = fault
        instance._context = context
        instance.obj_reset_changes(recursive=True)
        return instance

    def _db_values(self, values):
        values = dict(values)
        for attr in _FLAVOR_ATTRS:
            if attr in values:
                flavor = getattr(self, attr)
                values[attr] = (jsonutils.dumps(flavor.obj_to_primitive())
                                if flavor is not None else None)
        if 'metadata' in values:
            values['metadata_'] = jsonutils.dumps(values.pop('metadata'))
        if values.get('trusted_certs') is not None:
            values['trusted_certs'] = jsonutils.dumps(values['trusted_certs'])
        values.pop('fault', None)
        values.pop('id', None)
        if 'deleted' in values:
            values['deleted'] = self.id if values['deleted'] else 0
        return values

    @staticmethod
    @db_api.reader
    def _get_row(context, uuid):
        query = sa.select(models.Instance).filter_by(uuid=uuid)
        query = _apply_read_deleted(query, context)
        row = context.session.scalars(query).first()
        if row is None:
            raise exception.InstanceNotFound(instance_id=uuid)
        return row

    @classmethod
    @base.remotable
    def get_by_uuid(cls, context, uuid, expected_attrs=None):
        row = cls._get_row(context, uuid)
        fault = None
        if 'fault' in (expected_attrs or ()):
            fault = instance_fault.InstanceFault.get_latest_for_instances(
                context, [uuid]).get(uuid)
        return cls._from_db_object(context, cls(), row, expected_attrs, fault)

    @staticmethod
    @db_api.writer
    def _create_in_db(context, values):
        row = models.Instance(**values)
        context.session.add(row)
        context.session.flush()
        return row

    def _new_values(self):
        """The row values of this new instance, as ``create`` writes
        them."""
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        flavor = self.flavor
        for attr in ('vcpus', 'memory_mb', 'root_gb', 'ephemeral_gb'):
            if not self.obj_attr_is_set(attr):
                setattr(self, attr, getattr(flavor, attr))
        values = self._db_values(self.obj_get_changes())
        if 'flavor' not in values:   # written above when it was set
            values['flavor'] = jsonutils.dumps(flavor.obj_to_primitive())
        values.setdefault('deleted', 0)
        return values

    @base.remotable
    def create(self):
        self._from_db_object(self._context, self, self._create_in_db(
            self._context, self._new_values()))

    @classmethod
    def create_all_in_session(cls, session, instances, build_owner=None):
        """Create the new ``instances`` in the caller's transaction with
        one Core INSERT (not through a remote conductor: the
        conductor's provisioning writes them), naming ``build_owner``
        on their rows if given; each ends as ``create`` leaves it."""
        rows, written = [], []
        for instance in instances:
            values = instance._new_values()
            # The fields written from the object hold what the row holds
            # (every boot writes one: they are not set, nor their JSON
            # parsed, back); the others take the row's defaults.
            written.append([_FIELD_OF.get(name, name) for name in values])
            if build_owner is not None:
                values['build_owner'] = build_owner
            rows.append(queries.with_defaults(models.Instance, values))
        ids = dict(queries.insert_rows(session, models.Instance, rows,
                                       returning=('uuid', 'id')))
        for instance, row, kept in zip(instances, rows, written,
                                       strict=True):
            row['id'] = ids[row['uuid']]
            cls._from_db_object(instance._context, instance,
                                types.SimpleNamespace(**row), kept=kept)

    @staticmethod
    @db_api.one_statement_writer
    def _save_in_db(context, uuid, values, expected_task_state,
                    expected_vm_state, noted=None):
        """``noted``: (node uuid, vm_state, task_state) to tell the
        schedulers of once the save commits (``_noted_state``)."""
        model = models.Instance
        if context.session.get_bind().dialect.name == 'mysql':
            # DATETIME keeps whole seconds there: stamp what it will keep.
            values['updated_at'] = values['updated_at'].replace(microsecond=0)
        values = queries.by_column(model, values)
        params = {'b_' + name: value for name, value in values.items()}
        params['b_uuid'] = uuid
        shapes = []
        for name, expected in (('task_state', expected_task_state),
                               ('vm_state', expected_vm_state)):
            listed, none = _expected(expected)
            if listed:
                params['b_expected_' + name] = listed
            shapes.append(None if expected is None
                          else (bool(listed), none))
        query = _save_statement(tuple(sorted(values)), *shapes)
        if context.session.execute(query, params).rowcount == 1:
            if noted is not None:
                scheduler_changes.note_instance(
                    context.session, noted[0], uuid, noted[1], noted[2],
                    _stamp(values['updated_at']))
            return values['updated_at']
        row = context.session.scalars(sa.select(model).filter_by(
            uuid=uuid, deleted=0)).first()
        if row is None:
            raise exception.InstanceNotFound(instance_id=uuid)
        if expected_task_state is not None:
            raise exception.UnexpectedTaskStateError(
                instance_uuid=uuid, expected=expected_task_state,
                actual=row.task_state)
        raise exception.InstanceInvalidState(
            instance_uuid=uuid, attr='vm_state', state=row.vm_state,
            method='save')

    @base.remotable
    def save(self, expected_task_state=None, expected_vm_state=None):
        """Write changed fields.

        ``expected_task_state`` / ``expected_vm_state`` (a value or a list;
        None inside the list matches no task) make the write conditional;
        a mismatch raises UnexpectedTaskStateError or InstanceInvalidState
        and writes nothing.
        """
        values = self._db_values(self.obj_get_changes())
        if not values:
            return
        values['updated_at'] = _utcnow()
        # The row now holds what this object holds (the update was
        # conditional on nobody having moved it meanwhile): no read back.
        self.updated_at = self._save_in_db(
            self._context, self.uuid, values, expected_task_state,
            expected_vm_state, self._noted_state(values))
        self.obj_reset_changes(recursive=True)

    def _noted_state(self, values):
        """(node uuid, vm_state, task_state) when this save changes the
        states of an instance on a compute node: the schedulers count
        its I/O ops there (building, an I/O-heavy task) and are told
        with the change notices, None otherwise."""
        if 'vm_state' not in values and 'task_state' not in values:
            return None
        fields_ = ('compute_node_uuid', 'vm_state', 'task_state')
        if not all(self.obj_attr_is_set(name) for name in fields_):
            return None
        if not self.compute_node_uuid:
            return None
        return tuple(getattr(self, name) for name in fields_)

    @base.remotable
    def save_offloaded(self, expected_task_state):
        """Save the instance shelved and offloaded (no host, no node) and
        free its allocations, in one transaction, conditional on
        ``expected_task_state``; returns the uuids of the providers
        freed. Kept as the remotable entry computes of an older release
        (or pinned below conductor RPC 1.9) call; it runs in the
        conductor, where ``conductor.tasks.shelve_offload`` does the
        work."""
        from nova_lite.conductor.tasks import shelve_offload
        return shelve_offload.offload(self._context, self,
                                      expected_task_state)

    def release_quota(self):
        """Give back the quota this instance holds, once (a build that
        failed for good): a later destroy does not release it again.
        Returns whether anything was released. Conductor only: the
        workflow is ``conductor.tasks.destroy.release_quota``."""
        from nova_lite.conductor.tasks import destroy as destroy_task
        return destroy_task.release_quota(self._context, self.uuid)

    @base.remotable
    def destroy(self):
        """Soft-delete the instance, free its allocations and release its
        quota usage, atomically (so exactly once).

        Returns the uuids of the providers whose usage went down. Kept as
        the remotable entry computes and the API (and older peers) call;
        it runs in the conductor, where ``conductor.tasks.destroy`` does
        the work.
        """
        from nova_lite.conductor.tasks import destroy as destroy_task
        return destroy_task.destroy(self._context, self)


def _stamp(when):
    """A naive UTC datetime as seconds since the epoch."""
    return calendar.timegm(when.timetuple()) + when.microsecond / 1e6


def _expected(expected):
    """([the states expected], whether None, no state, is one of them)
    of an expected state or list of states."""
    if not isinstance(expected, (list, tuple, set)):
        expected = [expected]
    return [v for v in expected if v is not None], None in expected


def _state_in(column, expected):
    values, none = _expected(expected)
    clauses = [column.in_(values)] if values else []
    if none:
        clauses.append(column.is_(None))
    return sa.or_(*clauses)


@functools.cache
def _save_statement(columns, task_state, vm_state):
    """The UPDATE of a save of ``columns``, expecting ``task_state`` and
    ``vm_state`` (None: any; else (any of a list, or None)), built once
    per shape with bound parameters: Core, on the table
    (``queries.by_column``), and built once, as every build saves and
    building an UPDATE costs several times running it."""
    table = models.Instance.__table__
    rows = table.c
    query = sa.update(table).where(rows.uuid == sa.bindparam('b_uuid'),
                                   rows.deleted == 0)
    for name, shape in (('task_state', task_state), ('vm_state', vm_state)):
        if shape is None:
            continue
        listed, none = shape
        clauses = [rows[name].in_(sa.bindparam('b_expected_' + name,
                                               expanding=True))
                   ] if listed else []
        if none:
            clauses.append(rows[name].is_(None))
        query = query.where(sa.or_(*clauses))
    return query.values({column: sa.bindparam('b_' + column)
                         for column in columns})


def _apply_read_deleted(query, context, model=models.Instance):
    if context.read_deleted == 'no':
        return query.where(model.deleted == 0)
    if context.read_deleted == 'only':
        return query.where(model.deleted != 0)
    return query


@base.NovaLiteObjectRegistry.register
class InstanceList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version, Instance <= 1.0
    # Version 1.1: Instance <= 1.1
    # Version 1.2: Instance <= 1.2
    # Version 1.3: Instance <= 1.3
    VERSION = '1.3'

    fields = {
        'objects': fields.ListOfObjectsField('Instance'),
    }
    # Which Instance each version carries, for backports made without a
    # version manifest.
    child_versions = {'1.0': '1.0', '1.1': '1.1', '1.2': '1.2',
                      '1.3': '1.3'}

    @staticmethod
    @db_api.reader
    def _get_rows(context, filters, sort_key, sort_dir, limit, marker):
        model = models.Instance
        query = _apply_read_deleted(sa.select(model), context)
        query = _apply_filters(query, filters)
        if sort_key not in _SORT_KEYS:
            raise exception.InvalidInput(
                reason='sort_key must be one of %s' % ', '.join(_SORT_KEYS))
        column = getattr(model, sort_key)
        desc = sort_dir == 'desc'
        query = query.order_by(column.desc() if desc else column.asc(),
                               model.id.desc() if desc else model.id.asc())
        if marker is not None:
            query = _after_marker(context, query, model, column, desc,
                                  marker, filters.get('project_id'))
        if limit is not None:
            query = query.limit(limit)
        return context.session.scalars(query).all()

    @classmethod
    @base.remotable
    def get_by_filters(cls, context, filters, sort_key='created_at',
                       sort_dir='desc', limit=None, marker=None,
                       expected_attrs=None):
        """Instances matching ``filters``; see ``_apply_filters`` for keys."""
        rows = cls._get_rows(context, filters or {}, sort_key, sort_dir,
                             limit, marker)
        faults = {}
        if 'fault' in (expected_attrs or ()):
            faults = instance_fault.InstanceFault.get_latest_for_instances(
                context, [row.uuid for row in rows])
        return cls(context, objects=[
            Instance._from_db_object(context, Instance(), row,
                                     expected_attrs, faults.get(row.uuid))
            for row in rows])

    @classmethod
    @base.remotable
    def get_by_host(cls, context, host):
        return cls.get_by_filters(context, {'host': host}, sort_key='id',
                                  sort_dir='asc')


def _apply_filters(query, filters):
    """Filter keys: uuid (one or a list), project_id, user_id, host, node,
    vm_state, task_state, reservation_id (values or lists),
    availability_zone, key_name, power_state, created_at, launched_at,
    terminated_at (equal to the value), name (substring of the display
    name), building_before (created before a datetime, still building),
    updated_before (last written before a datetime), changes-since and
    changes-before (last changed at or after, at or before a datetime:
    its updated_at, or created_at if never updated, as the API shows
    ``updated``), locked (a bool), and the tag filters of
    ``_apply_tag_filters``.
    """
    model = models.Instance
    for key in ('uuid', 'project_id', 'user_id', 'host', 'node',
                'vm_state', 'task_state', 'reservation_id'):
        if key in filters and filters[key] is not None:
            query = query.where(_state_in(getattr(model, key), filters[key]))
    for key in _EQUAL_FILTERS:
        if filters.get(key) is not None:
            query = query.where(getattr(model, key) == filters[key])
    if filters.get('name'):
        query = query.where(model.display_name.contains(filters['name'],
                                                        autoescape=True))
    if filters.get('building_before') is not None:
        query = query.where(model.vm_state == fields.VMState.BUILDING,
                            model.created_at < filters['building_before'])
    if filters.get('updated_before') is not None:
        query = query.where(model.updated_at < filters['updated_before'])
    changed = sa.func.coalesce(model.updated_at, model.created_at)
    if filters.get('changes-since') is not None:
        query = query.where(changed >= filters['changes-since'])
    if filters.get('changes-before') is not None:
        query = query.where(changed <= filters['changes-before'])
    if filters.get('locked') is not None:
        query = query.where(model.locked == bool(filters['locked']))
    return _apply_tag_filters(query, filters)


def _has_tags(tags):
    """A clause per tag: the instance has it."""
    return [sa.exists().where(models.Tag.resource_id == models.Instance.uuid,
                              models.Tag.tag == tag) for tag in tags]


def _apply_tag_filters(query, filters):
    """Tag filter keys (lists of tags): tags (has all), tags-any (has one
    at least), not-tags (lacks one at least), not-tags-any (has none)."""
    if filters.get('tags'):
        query = query.where(*_has_tags(filters['tags']))
    if filters.get('tags-any'):
        query = query.where(sa.or_(*_has_tags(filters['tags-any'])))
    if filters.get('not-tags'):
        query = query.where(sa.not_(sa.and_(*_has_tags(filters['not-tags']))))
    if filters.get('not-tags-any'):
        query = query.where(
            sa.not_(sa.or_(*_has_tags(filters['not-tags-any']))))
    return query


def _after_marker(context, query, model, column, desc, marker, project_id):
    """``query`` past the marker instance; MarkerNotFound if the marker is
    not an instance of ``project_id`` (when given): another project's
    server answers as an unknown one, so a list cannot reveal it."""
    marker_query = sa.select(model).filter_by(uuid=marker)
    if project_id is not None:
        marker_query = marker_query.where(_state_in(model.project_id,
                                                    project_id))
    marker_row = context.session.scalars(
        _apply_read_deleted(marker_query, context)).first()
    if marker_row is None:
        raise exception.MarkerNotFound(marker=marker)
    value = getattr(marker_row, column.key)
    if value is None:
        return query.where(model.id > marker_row.id if not desc
                           else model.id < marker_row.id)
    beyond = column < value if desc else column > value
    tie = model.id < marker_row.id if desc else model.id > marker_row.id
    return query.where(sa.or_(beyond, sa.and_(column == value, tie)))
