"""GET /os-migrations and GET /servers/{id}/migrations: the records of
servers' moves, in Nova's shapes (administrators).

``/os-migrations`` lists every migration, newest first, filtered by the
query's ``host`` (source or destination), ``status``,
``instance_uuid``, ``migration_type`` and ``source_compute``; hidden
ones only with ``hidden=true``, as Nova. ``/servers/{id}/migrations``
lists, as Nova does, only the server's live migrations in progress.
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
_LIVE_IN_PROGRESS = ('queued', 'preparing', 'running', 'post-migrating')


def _view(migration):
    view = {name: getattr(migration, name) for name in _FIELDS}
    view['created_at'] = common.isotime_usec(migration.created_at)
    view['updated_at'] = common.isotime_usec(migration.updated_at)
    return view


def index(req):
    """200 {"migrations": [...]}, newest first."""
    context = req.context
    context.can(policies.INDEX, target={})
    filters = {name: req.GET[name] for name in _FILTERS if name in req.GET}
    if not common.to_bool(req.GET.get('hidden', False)):
        filters['hidden'] = False
    found = objects.MigrationList.get_by_filters(context, filters)
    return wsgi.json_response({'migrations': [_view(m) for m in found]})


def server_index(req, server_id):
    """200 {"migrations": [...]}: the server's live migrations in
    progress; 404 for an unknown server."""
    context = req.context
    instance = compute.get(context, server_id)
    context.can(policies.SERVER_INDEX,
                target={'project_id': instance.project_id})
    found = objects.MigrationList.get_by_filters(context, {
        'instance_uuid': instance.uuid, 'migration_type': 'live-migration',
        'status': list(_LIVE_IN_PROGRESS)})
    return wsgi.json_response({'migrations': [_view(m) for m in found]})
