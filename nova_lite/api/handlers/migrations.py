"""GET /os-migrations and GET /servers/{id}/migrations: the records of
servers' moves, in Nova's shapes (administrators).

``/os-migrations`` lists every migration, newest first, filtered by the
query's ``host`` (source or destination), ``status``,
``instance_uuid``, ``migration_type`` and ``source_compute``; hidden
ones only with ``hidden=true``, as Nova. ``/servers/{id}/migrations``
lists, as Nova does, only the server's live migrations in progress
(from 2.23 in Nova's server-migration view; show, abort and
force_complete of one are in ``server_live_migrate``).

From 2.59 both views show the migration's ``uuid``, and
``/os-migrations`` pages (``limit``, ``marker`` a migration uuid,
``changes-since``) with ``migrations_links`` when a page is full.

From 2.80 both views show the ``user_id`` and ``project_id`` of the
migration, and ``/os-migrations`` filters on them.
"""

from nova_lite.api import common
from nova_lite.api.schemas import migrations as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.compute import api as compute_api
from nova_lite import objects
from nova_lite.policies import migrations as policies

compute = compute_api.API()

# Nova's 2.1 view: no migration_type nor uuid (added at 2.23 and 2.59).
_FIELDS = ('id', 'instance_uuid', 'source_compute', 'source_node',
           'dest_compute', 'dest_host', 'dest_node', 'status',
           'old_instance_type_id', 'new_instance_type_id')
_FILTERS = ('host', 'status', 'instance_uuid', 'migration_type',
            'source_compute')
# From 2.80 (before: ignored below 2.59, unknown parameters from 2.59).
_OWNER_FILTERS = ('user_id', 'project_id')
PAGING_VERSION = '2.59'
OWNER_VERSION = '2.80'
# Nova's statuses of a live migration still running.
LIVE_IN_PROGRESS = ('queued', 'preparing', 'running', 'post-migrating')


def _view(req, migration):
    """Nova's os-migrations view; from 2.23 with ``migration_type``, and
    for a live migration in progress links to it under its server."""
    view = {name: getattr(migration, name) for name in _FIELDS}
    view['created_at'] = common.isotime_usec(migration.created_at)
    view['updated_at'] = common.isotime_usec(migration.updated_at)
    if req.api_version_request.matches('2.23'):
        view['migration_type'] = migration.migration_type
        if (migration.migration_type == 'live-migration'
                and migration.status in LIVE_IN_PROGRESS):
            view['links'] = common.links(
                req, 'servers/%s/migrations' % migration.instance_uuid,
                migration.id)
    _add_uuid_and_owner(req, migration, view)
    return view


def _add_uuid_and_owner(req, migration, view):
    """``uuid`` from 2.59, ``user_id`` and ``project_id`` from 2.80."""
    if req.api_version_request.matches(PAGING_VERSION):
        view['uuid'] = migration.uuid
    if req.api_version_request.matches(OWNER_VERSION):
        view['user_id'] = migration.user_id
        view['project_id'] = migration.project_id


# Nova's view of a server's live migration (2.23); no progress figures
# from the fake driver.
_SERVER_FIELDS = ('id', 'source_compute', 'source_node', 'dest_compute',
                  'dest_host', 'dest_node', 'status')
_PROGRESS = ('memory_total_bytes', 'memory_processed_bytes',
             'memory_remaining_bytes', 'disk_total_bytes',
             'disk_processed_bytes', 'disk_remaining_bytes')


def server_view(req, migration):
    """A migration as ``/servers/{id}/migrations`` shows it from 2.23."""
    view = {name: getattr(migration, name) for name in _SERVER_FIELDS}
    view.update(dict.fromkeys(_PROGRESS))
    view['server_uuid'] = migration.instance_uuid
    view['created_at'] = common.isotime_usec(migration.created_at)
    view['updated_at'] = common.isotime_usec(migration.updated_at)
    _add_uuid_and_owner(req, migration, view)
    return view


_V259_QUERY = validation._validator(schema.INDEX_QUERY_V259)
_V266_QUERY = validation._validator(schema.INDEX_QUERY_V266)
_V280_QUERY = validation._validator(schema.INDEX_QUERY_V280)


def _page(req, filters):
    version = req.api_version_request
    if version.matches(OWNER_VERSION):
        validation.validate(_V280_QUERY, validation.query_dict(req))
        filters.update({name: req.GET[name] for name in _OWNER_FILTERS
                        if name in req.GET})
    else:
        query = _V266_QUERY if version.matches('2.66') else _V259_QUERY
        validation.validate(query, validation.query_dict(req))
    limit, marker = common.get_limit_and_marker(req)
    since, before = common.changes_window(req)
    found = objects.MigrationList.get_page(
        req.context, filters, limit, marker=marker,
        changes_since=since, changes_before=before)
    views = [_view(req, m) for m in found]
    body = {'migrations': views}
    links = common.collection_links(req, views, 'os-migrations',
                                    id_key='uuid')
    if links:
        body['migrations_links'] = links
    return wsgi.json_response(body)


@validation.query(schema.INDEX_QUERY)
def index(req):
    """200 {"migrations": [...]}, newest first; from 2.59 a page of them
    with "migrations_links" (the next page) when it is full: 400 for a
    marker that is no migration's uuid, a bad changes-since (or from
    2.66 changes-before, or one earlier than changes-since) or an
    unknown query parameter (user_id and project_id filter from
    2.80)."""
    context = req.context
    context.can(policies.INDEX, target={})
    filters = {name: req.GET[name] for name in _FILTERS if name in req.GET}
    if not common.to_bool(req.GET.get('hidden', False)):
        filters['hidden'] = False
    if req.api_version_request.matches(PAGING_VERSION):
        return _page(req, filters)
    found = objects.MigrationList.get_by_filters(context, filters)
    return wsgi.json_response({'migrations': [_view(req, m) for m in found]})


# For the OpenAPI document: what _page checks from 2.59.
index.query_schema_versions = (('2.1', schema.INDEX_QUERY),
                               (PAGING_VERSION, schema.INDEX_QUERY_V259),
                               ('2.66', schema.INDEX_QUERY_V266),
                               (OWNER_VERSION, schema.INDEX_QUERY_V280))


def server_index(req, server_id):
    """200 {"migrations": [...]}: the server's live migrations in
    progress; 404 for an unknown server."""
    context = req.context
    instance = compute.get(context, server_id)
    context.can(policies.SERVER_INDEX,
                target={'project_id': instance.project_id})
    found = objects.MigrationList.get_by_filters(context, {
        'instance_uuid': instance.uuid, 'migration_type': 'live-migration',
        'status': list(LIVE_IN_PROGRESS)})
    if req.api_version_request.matches('2.23'):
        views = [server_view(req, m) for m in found]
    else:
        views = [_view(req, m) for m in found]
    return wsgi.json_response({'migrations': views})
