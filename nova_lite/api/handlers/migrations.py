"""GET /os-migrations and GET /servers/{id}/migrations: the records of
servers' moves, in Nova's shapes (administrators).

``/os-migrations`` lists every migration, newest first, filtered by the
query's ``host`` (source or destination), ``status``,
``instance_uuid``, ``migration_type`` and ``source_compute``; hidden
ones only with ``hidden=true``, as Nova. ``/servers/{id}/migrations``
lists, as Nova does, only the server's live migrations in progress
(from 2.23 in Nova's server-migration view; show, abort and
force_complete of one are in ``server_live_migrate``).
"""

from nova_lite.api import common
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
    return view


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
    if req.api_version_request.matches('2.59'):
        view['uuid'] = migration.uuid
    return view


def index(req):
    """200 {"migrations": [...]}, newest first."""
    context = req.context
    context.can(policies.INDEX, target={})
    filters = {name: req.GET[name] for name in _FILTERS if name in req.GET}
    if not common.to_bool(req.GET.get('hidden', False)):
        filters['hidden'] = False
    found = objects.MigrationList.get_by_filters(context, filters)
    return wsgi.json_response({'migrations': [_view(req, m) for m in found]})


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
