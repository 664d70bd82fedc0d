"""The embedded image registry, in the database (``images``,
``image_properties``): the default image backend (``[image] backend =
registry``). Callers go through ``nova_lite.image.api``.

An image is a plain dict::

    {'id', 'name', 'status', 'disk_format', 'container_format', 'size',
     'min_disk', 'min_ram', 'owner', 'visibility', 'properties': {},
     'created_at', 'updated_at'}

Reads (``get``, ``get_all``) work in the API process; ``create``,
``set_status`` and ``delete`` write and are for processes with direct
database access (``nova-lite-manage``, the API, the conductor); a compute
reaches them through ``objects.Image`` (snapshots, shelving).
Visibility follows Glance: a public image is seen by everyone, another one
only by its owner's project and by administrators.
"""

from oslo_db import exception as db_exc
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import exception

DISK_FORMATS = ('raw', 'qcow2', 'vmdk', 'vdi', 'vhd', 'vhdx', 'iso',
                'ploop', 'ami', 'ari', 'aki')
CONTAINER_FORMATS = ('bare', 'ovf', 'ova', 'docker', 'ami', 'ari', 'aki',
                     'compressed')
VISIBILITIES = ('public', 'private', 'shared', 'community')
# Glance's statuses: a snapshot is queued, then saving, then active (or
# killed when its upload failed).
STATUSES = ('queued', 'saving', 'active', 'killed', 'deleted',
            'pending_delete', 'importing')
_DEFAULT_LIMIT = 1000


def _to_dict(row, properties=None):
    """An image's dict from ``row`` (an ORM row, whose properties it
    reads, or a Core row with ``properties`` given)."""
    if properties is None:
        properties = {p.name: p.value for p in row.properties}
    return {
        'id': row.id,
        'name': row.name,
        'status': row.status,
        'disk_format': row.disk_format,
        'container_format': row.container_format,
        'size': row.size,
        'min_disk': row.min_disk,
        'min_ram': row.min_ram,
        'owner': row.owner,
        'visibility': row.visibility,
        'properties': properties,
        'created_at': row.created_at,
        'updated_at': row.updated_at,
    }


def _visible(query, context):
    if context.is_admin:
        return query
    model = models.Image
    clauses = [model.visibility.in_(('public', 'community'))]
    if context.project_id:
        clauses.append(model.owner == context.project_id)
    return query.where(sa.or_(*clauses))


def _check_choice(name, value, choices):
    if value not in choices:
        raise exception.InvalidInput(
            reason='%s %r is not one of %s' % (name, value,
                                               ', '.join(choices)))


def create(context, name, disk_format='raw', container_format='bare',
           properties=None, min_disk=0, min_ram=0, size=0,
           visibility='public', owner=None, image_id=None, status='active'):
    """Register an image; returns its dict.

    Raises InvalidInput for an unknown format, status or visibility, an
    empty name or a negative size, and ImageExists when ``image_id`` is
    taken. A snapshot starts ``queued`` and becomes ``active`` with
    ``set_status`` once its data is uploaded.
    """
    values = _validated(name, disk_format, container_format, min_disk,
                        min_ram, size, visibility)
    _check_choice('status', status, STATUSES)
    values.update(
        id=image_id or uuidutils.generate_uuid(), status=status,
        owner=owner if owner is not None else context.project_id,
        created_at=timeutils.utcnow().replace(tzinfo=None))
    properties = {str(k): str(v) for k, v in (properties or {}).items()}
    return _create_in_db(context, values, properties)


def _validated(name, disk_format, container_format, min_disk, min_ram,
               size, visibility):
    if not name or not str(name).strip():
        raise exception.InvalidInput(reason='an image needs a name')
    _check_choice('disk_format', disk_format, DISK_FORMATS)
    _check_choice('container_format', container_format, CONTAINER_FORMATS)
    _check_choice('visibility', visibility, VISIBILITIES)
    sizes = {'min_disk': min_disk, 'min_ram': min_ram, 'size': size}
    for key, value in sizes.items():
        try:
            sizes[key] = int(value)
        except (TypeError, ValueError):
            sizes[key] = -1
        if sizes[key] < 0:
            raise exception.InvalidInput(
                reason='%s must be a non-negative integer, not %r'
                       % (key, value))
    return dict(sizes, name=name, disk_format=disk_format,
                container_format=container_format, visibility=visibility)


@db_api.writer
def _create_in_db(context, values, properties):
    row = models.Image(**values)
    row.properties = [models.ImageProperty(name=k, value=v)
                      for k, v in properties.items()]
    context.session.add(row)
    try:
        context.session.flush()
    except db_exc.DBDuplicateEntry:
        raise exception.ImageExists(image_id=values['id'])
    return _to_dict(row)


@db_api.writer
def set_status(context, image_id, status, size=None):
    """Set the status (and the size, in bytes, if given) of an image;
    ImageNotFound if there is no such image."""
    _check_choice('status', status, STATUSES)
    row = context.session.get(models.Image, image_id)
    if row is None:
        raise exception.ImageNotFound(image_id=image_id)
    row.status = status
    if size is not None:
        row.size = int(size)
    row.updated_at = timeutils.utcnow().replace(tzinfo=None)
    context.session.flush()
    return _to_dict(row)


@db_api.writer
def delete(context, image_id):
    """Remove an image and its properties; True if there was one (a
    second delete is not an error: a snapshot is deleted by whoever
    finishes with it first)."""
    row = context.session.get(models.Image, image_id)
    if row is None:
        return False
    context.session.delete(row)
    context.session.flush()
    return True


# The API reads an image for every boot: its statement is built once per
# kind of caller (administrator, project member, neither) from the
# tables' columns and bind parameters, and run without the ORM, whose
# load of the same rows took several times the CPU.
_GET_STATEMENTS = {}


def _get_statement(kind):
    statement = _GET_STATEMENTS.get(kind)
    if statement is not None:
        return statement
    table = models.Image.__table__
    props = models.ImageProperty.__table__
    statement = (
        sa.select(table, props.c.name.label('prop_name'),
                  props.c.value.label('prop_value'))
        .select_from(table.outerjoin(props,
                                     props.c.image_id == table.c.id))
        .where(table.c.id == sa.bindparam('b_id')))
    if kind != 'admin':
        clauses = [table.c.visibility.in_(('public', 'community'))]
        if kind == 'member':
            clauses.append(table.c.owner == sa.bindparam('b_owner'))
        statement = statement.where(sa.or_(*clauses))
    _GET_STATEMENTS[kind] = statement
    return statement


@db_api.reader
def get(context, image_id):
    """The image ``image_id`` if the caller may see it.

    Raises ImageNotFound otherwise (an invisible image is not found).
    One Core statement (the image outer-joined to its properties).
    """
    if context.is_admin:
        kind, params = 'admin', {'b_id': image_id}
    elif context.project_id:
        kind, params = 'member', {'b_id': image_id,
                                  'b_owner': context.project_id}
    else:
        kind, params = 'anonymous', {'b_id': image_id}
    rows = context.session.execute(_get_statement(kind), params).all()
    if not rows:
        raise exception.ImageNotFound(image_id=image_id)
    return _to_dict(rows[0], {row.prop_name: row.prop_value for row in rows
                              if row.prop_name is not None})


@db_api.reader
def get_all(context, limit=None, marker=None, filters=None):
    """Visible images, newest first, at most ``limit`` after ``marker``.

    ``filters``: name (exact), status, min_disk / min_ram (images needing
    at least that much), visibility, owner, properties (a dict: images
    with every one of these properties at that value). A marker that is
    not a visible image raises MarkerNotFound (400).
    """
    model = models.Image
    query = _visible(sa.select(model), context)
    query = _apply_filters(query, filters or {})
    query = query.order_by(model.created_at.desc(), model.id.desc())
    if marker is not None:
        query = _after_marker(context, query, marker)
    query = query.limit(limit if limit is not None else _DEFAULT_LIMIT)
    return [_to_dict(row) for row in context.session.scalars(query)]


def _apply_filters(query, filters):
    model = models.Image
    for key in ('name', 'status', 'visibility', 'owner'):
        if filters.get(key) is not None:
            query = query.where(getattr(model, key) == filters[key])
    if filters.get('min_disk') is not None:
        query = query.where(model.min_disk >= int(filters['min_disk']))
    if filters.get('min_ram') is not None:
        query = query.where(model.min_ram >= int(filters['min_ram']))
    prop = models.ImageProperty
    for name, value in (filters.get('properties') or {}).items():
        query = query.where(sa.exists().where(
            prop.image_id == model.id, prop.name == name,
            prop.value == value))
    return query


def _after_marker(context, query, marker):
    model = models.Image
    row = context.session.scalars(_visible(
        sa.select(model).filter_by(id=marker), context)).first()
    if row is None:
        raise exception.MarkerNotFound(marker=marker)
    return query.where(sa.or_(
        model.created_at < row.created_at,
        sa.and_(model.created_at == row.created_at, model.id < row.id)))


class RegistryBackend:
    """The image API over this registry (see ``nova_lite.image.api``)."""

    reads_database = True

    def get(self, context, image_id, cached=True):
        return get(context, image_id)

    def get_all(self, context, limit=None, marker=None, filters=None):
        return get_all(context, limit=limit, marker=marker, filters=filters)

    def create(self, context, name, **kwargs):
        return create(context, name, **kwargs)

    def set_status(self, context, image_id, status, size=None):
        return set_status(context, image_id, status, size=size)

    def delete(self, context, image_id):
        """As Glance: an image the caller cannot see is not there (False);
        only its owner's project or an administrator deletes one
        (Forbidden)."""
        try:
            image = get(context, image_id)
        except exception.ImageNotFound:
            return False
        if not context.is_admin and image['owner'] != context.project_id:
            raise exception.Forbidden(
                reason='image %s belongs to another project' % image_id)
        return delete(context, image_id)
