"""Flavor: the size of a server (VCPUs, RAM, disks) and its extra specs.

An instance keeps a copy of the flavor it was built with, so deleting or
changing a flavor never changes a running server.
"""

import functools

import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite.db import queries
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import fields

@functools.cache
def _select_by(column):
    """The flavor and its extra specs where ``column`` is the bound
    ``b_value``: built once per column, as every boot reads a flavor."""
    table = models.Flavor.__table__
    specs = models.FlavorExtraSpec.__table__
    return sa.select(
        table, specs.c.key.label('spec_key'),
        specs.c.value.label('spec_value')).select_from(table.outerjoin(
            specs, specs.c.flavor_id == table.c.id)).where(
        table.c[column] == sa.bindparam('b_value'))


_SORT_KEYS = ('flavorid', 'name', 'memory_mb', 'vcpus', 'root_gb',
              'ephemeral_gb', 'swap', 'id', 'created_at')


@base.NovaLiteObjectRegistry.register
class Flavor(base.NovaLiteObject, base.NovaLiteTimestampObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'flavorid': fields.StringField(),
        'name': fields.StringField(),
        'memory_mb': fields.IntegerField(),
        'vcpus': fields.IntegerField(),
        'root_gb': fields.IntegerField(default=0),
        'ephemeral_gb': fields.IntegerField(default=0),
        'swap': fields.IntegerField(default=0),
        'rxtx_factor': fields.FloatField(default=1.0),
        'disabled': fields.BooleanField(default=False),
        'is_public': fields.BooleanField(default=True),
        'description': fields.StringField(nullable=True),
        'extra_specs': fields.DictOfStringsField(default={}),
    }
    fields.update(base.NovaLiteTimestampObject.fields)

    @staticmethod
    def _from_db_object(context, flavor, row, extra_specs=None):
        """Fill ``flavor`` from ``row`` (an ORM row, whose extra specs it
        reads, or a Core row with ``extra_specs`` given)."""
        base.set_all_from_db(flavor, row, skip=('extra_specs',))
        if extra_specs is None:
            extra_specs = {spec.key: spec.value for spec in row.extra_specs}
        flavor.extra_specs = extra_specs
        flavor._context = context
        flavor.obj_reset_changes()
        return flavor

    @staticmethod
    @db_api.reader
    def _get_from_db(context, column, value):
        """(the flavor's row, its extra specs) where ``column`` is
        ``value``; FlavorNotFound. One Core statement: the ORM's read of
        the same rows with a joined load took several times its CPU, and
        the API reads a flavor for every boot."""
        rows = context.session.execute(_select_by(column),
                                       {'b_value': value}).all()
        if not rows:
            raise exception.FlavorNotFound(flavor_id=value)
        return rows[0], {row.spec_key: row.spec_value for row in rows
                         if row.spec_key is not None}

    @classmethod
    @base.remotable
    def get_by_flavor_id(cls, context, flavorid):
        return cls._from_db_object(context, cls(), *cls._get_from_db(
            context, 'flavorid', str(flavorid)))

    @classmethod
    @base.remotable
    def get_by_id(cls, context, flavor_id):
        return cls._from_db_object(context, cls(), *cls._get_from_db(
            context, 'id', flavor_id))

    @classmethod
    @base.remotable
    def get_by_name(cls, context, name):
        return cls._from_db_object(context, cls(), *cls._get_from_db(
            context, 'name', name))

    @staticmethod
    @db_api.writer
    def _create_in_db(context, values, extra_specs):
        row = models.Flavor(**values)
        row.extra_specs = [models.FlavorExtraSpec(key=k, value=v)
                           for k, v in extra_specs.items()]

        def exists(error):
            if 'name' in (error.columns or []):
                return exception.FlavorExists(field='name',
                                              value=values['name'])
            return exception.FlavorExists(field='id',
                                          value=values['flavorid'])
        return queries.insert(context.session, row, exists)

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        values = self.obj_get_changes()
        extra_specs = values.pop('extra_specs', {}) or {}
        self._from_db_object(self._context, self,
                             self._create_in_db(self._context, values,
                                                extra_specs))

    @staticmethod
    @db_api.writer
    def _destroy_in_db(context, flavorid):
        row = context.session.scalars(sa.select(models.Flavor).filter_by(
            flavorid=flavorid)).first()
        if row is None:
            raise exception.FlavorNotFound(flavor_id=flavorid)
        context.session.delete(row)

    @base.remotable
    def destroy(self):
        self._destroy_in_db(self._context, self.flavorid)


@base.NovaLiteObjectRegistry.register
class FlavorList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version, Flavor <= 1.0
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('Flavor'),
    }

    @staticmethod
    @db_api.reader
    def _get_all_from_db(context, filters, sort_key, sort_dir, limit,
                         marker):
        model = models.Flavor
        query = sa.select(model)
        if filters.get('is_public') is not None:
            visible = model.is_public.is_(filters['is_public'])
            if filters['is_public'] and filters.get('project_id'):
                # Public flavors, and the private ones the project may use.
                visible = sa.or_(visible, model.projects.any(
                    models.FlavorProject.project_id ==
                    filters['project_id']))
            query = query.where(visible)
        if filters.get('min_memory_mb') is not None:
            query = query.where(model.memory_mb >= filters['min_memory_mb'])
        if filters.get('min_root_gb') is not None:
            query = query.where(model.root_gb >= filters['min_root_gb'])
        if sort_key not in _SORT_KEYS:
            raise exception.InvalidInput(
                reason='sort_key must be one of %s' % ', '.join(_SORT_KEYS))
        column = getattr(model, sort_key)
        order = column.desc() if sort_dir == 'desc' else column.asc()
        query = query.order_by(order, model.id.asc())
        if marker is not None:
            marker_row = context.session.scalars(
                sa.select(model).filter_by(flavorid=marker)).first()
            if marker_row is None:
                raise exception.FlavorNotFound(flavor_id=marker)
            value = getattr(marker_row, sort_key)
            after = column < value if sort_dir == 'desc' else column > value
            query = query.where(sa.or_(
                after, sa.and_(column == value, model.id > marker_row.id)))
        if limit is not None:
            query = query.limit(limit)
        return context.session.scalars(query).all()

    @classmethod
    @base.remotable
    def get_all(cls, context, filters=None, sort_key='flavorid',
                sort_dir='asc', limit=None, marker=None):
        rows = cls._get_all_from_db(context, filters or {}, sort_key,
                                    sort_dir, limit, marker)
        return cls(context, objects=[
            Flavor._from_db_object(context, Flavor(), row) for row in rows])


# Extra-spec and description writes are made by the API alone, which has
# the database: plain functions rather than remotable methods, so nothing
# about Flavor's RPC contract changes.

@db_api.writer
def update_extra_specs(context, flavorid, specs):
    """Set ``specs`` ({key: value}) on the flavor, adding or replacing
    keys; FlavorNotFound if there is no such flavor."""
    row = _flavor_row(context, flavorid)
    existing = {spec.key: spec for spec in row.extra_specs}
    for key, value in specs.items():
        if key in existing:
            existing[key].value = value
        else:
            row.extra_specs.append(models.FlavorExtraSpec(key=key,
                                                          value=value))
    context.session.flush()


@db_api.writer
def delete_extra_spec(context, flavorid, key):
    """Remove one key; FlavorNotFound or FlavorExtraSpecsNotFound."""
    row = _flavor_row(context, flavorid)
    for spec in row.extra_specs:
        if spec.key == key:
            row.extra_specs.remove(spec)
            context.session.flush()
            return
    raise exception.FlavorExtraSpecsNotFound(flavor_id=flavorid, key=key)


@db_api.writer
def update_description(context, flavorid, description):
    """Set the flavor's description (None clears it); FlavorNotFound."""
    row = _flavor_row(context, flavorid)
    row.description = description
    context.session.flush()


def _flavor_row(context, flavorid):
    return queries.first_or_raise(
        context.session, models.Flavor,
        lambda f: exception.FlavorNotFound(flavor_id=flavorid),
        flavorid=str(flavorid))


@db_api.reader
def get_access_projects(context, flavorid):
    """The projects that may use the flavor, sorted; FlavorNotFound."""
    row = _flavor_row(context, flavorid)
    return sorted(p.project_id for p in row.projects)


@db_api.writer
def add_access(context, flavorid, project_id):
    """Let ``project_id`` use the private flavor. FlavorNotFound,
    FlavorAccessOfPublicFlavor, FlavorAccessExists (409 both)."""
    row = _flavor_row(context, flavorid)
    if row.is_public:
        raise exception.FlavorAccessOfPublicFlavor(flavor_id=flavorid)
    if any(p.project_id == project_id for p in row.projects):
        raise exception.FlavorAccessExists(flavor_id=flavorid,
                                           project_id=project_id)
    queries.insert(
        context.session,
        models.FlavorProject(flavor_id=row.id, project_id=project_id),
        lambda error: exception.FlavorAccessExists(flavor_id=flavorid,
                                                   project_id=project_id))


@db_api.writer
def remove_access(context, flavorid, project_id):
    """Take the flavor away from ``project_id``; FlavorNotFound or
    FlavorAccessNotFound (404)."""
    row = _flavor_row(context, flavorid)
    for project in row.projects:
        if project.project_id == project_id:
            row.projects.remove(project)
            context.session.flush()
            return
    raise exception.FlavorAccessNotFound(flavor_id=flavorid,
                                         project_id=project_id)
