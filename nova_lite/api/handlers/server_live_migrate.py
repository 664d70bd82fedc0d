"""Live migration: the administrator's ``os-migrateLive`` server action,
and a live migration in progress under ``/servers/{id}/migrations/{id}``:
show (2.23), abort (DELETE, 2.24; from 2.65 also while ``queued`` or
``preparing``) and ``force_complete`` (2.22).

The body of ``os-migrateLive`` follows the microversion, as Nova's: at
2.1 ``host`` (may be null), ``block_migration`` and
``disk_over_commit`` are required; from 2.25 ``block_migration`` may be
``auto`` and ``disk_over_commit`` is gone; 2.30 to 2.67 accept
``force``. nova_lite never forces: a named host is still checked by the
scheduler's filters, as Nova does from 2.68 (``force`` is accepted and
has no other effect). Below 2.34 ``os-migrateLive`` waits until a
destination accepted (400 otherwise), as Nova; from 2.34 it answers at
once. Each answers 202 with no body once the migration is under way (its
outcome shows in the server, its instance actions and ``GET
/os-migrations``).
"""

from oslo_utils import strutils

from nova_lite.api import common
from nova_lite.api.handlers import migrations
from nova_lite.api.schemas import server_live_migrate as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.compute import api as compute_api
from nova_lite.compute import live_migrate_api
from nova_lite import exception
from nova_lite.policies import migrations as migration_policies
from nova_lite.policies import server_moves as policies

api = live_migrate_api.LiveMigrateAPI()
compute = compute_api.API()
_VALIDATORS = tuple((version, validation._validator(body_schema))
                    for version, body_schema
                    in schema.MIGRATE_LIVE_BY_VERSION)


def _can(req, rule, instance):
    req.context.can(rule, target={'project_id': instance.project_id,
                                  'user_id': instance.user_id})
    return req.context


def _bool(value):
    return strutils.bool_from_string(value, strict=True)


def _arguments(req, body):
    """(host, block_migration, disk_over_commit) of a valid body at the
    request's version; block_migration None means "auto"."""
    version = req.api_version_request
    for min_version, validator in _VALIDATORS:
        if version.matches(min_version):
            validation.validate(validator, body)
            break
    args = body['os-migrateLive']
    host = args.get('host')
    if 'force' in args and _bool(args['force']) and not host:
        raise exception.InvalidInput(
            reason="Can't force to a non-provided destination")
    if version.matches('2.25'):
        block = args['block_migration']
        return host, (None if block == 'auto' else _bool(block)), None
    return (host, _bool(args['block_migration']),
            _bool(args['disk_over_commit']))


def migrate_live(req, instance, body):
    """202 (administrators); 400 for a bad body, an unknown host or the
    server's own, and below 2.34 (which waits for the scheduler and the
    destination's check, as Nova) for no valid host or a refusing
    destination; 409 unless the server is ACTIVE or PAUSED with no
    task, or the services are pinned below live migration."""
    context = _can(req, policies.MIGRATE_LIVE, instance)
    host, block_migration, disk_over_commit = _arguments(req, body)
    api.live_migrate(context, instance, host=host,
                     block_migration=block_migration,
                     disk_over_commit=disk_over_commit,
                     wait=not req.api_version_request.matches('2.34'))
    return wsgi.json_response(status=202)


def _migration_context(req, server_id, rule):
    instance = compute.get(req.context, server_id)
    context = _can(req, rule, instance)
    return context, instance


@common.added_at('2.23')
def show(req, server_id, migration_id):
    """200 {"migration": {...}} (2.23): a live migration of the server
    in progress; 404 for any other."""
    context, instance = _migration_context(
        req, server_id, migration_policies.SERVER_SHOW)
    migration = live_migrate_api.get_for_instance(context, instance,
                                                  migration_id)
    if (migration.migration_type != 'live-migration'
            or migration.status not in migrations.LIVE_IN_PROGRESS):
        raise exception.LiveMigrationNotInProgress(
            migration_id=migration_id, instance_uuid=instance.uuid)
    return wsgi.json_response(
        {'migration': migrations.server_view(req, migration)})


@common.added_at('2.24')
def delete(req, server_id, migration_id):
    """202 (2.24): the running live migration is aborted (from 2.65
    also one queued or preparing), the server stays on its source; 404
    for an unknown migration, 400 for one in another status, 409 unless
    the server is migrating."""
    context, instance = _migration_context(
        req, server_id, migration_policies.SERVER_DELETE)
    api.abort(context, instance, migration_id,
              queued=req.api_version_request.matches('2.65'))
    return wsgi.json_response(status=202)


@common.added_at('2.22')
@validation.body(schema.FORCE_COMPLETE)
def action(req, server_id, migration_id, body):
    """202 (2.22, ``{"force_complete": null}``): the running live
    migration finishes now; 400 for a migration that is not running,
    409 unless the server is ACTIVE and migrating."""
    context, instance = _migration_context(
        req, server_id, migration_policies.FORCE_COMPLETE)
    api.force_complete(context, instance, migration_id)
    return wsgi.json_response(status=202)


ACTIONS = {
    'os-migrateLive': (schema.MIGRATE_LIVE_ANY, migrate_live),
}
SCHEMA_VERSIONS = {'os-migrateLive': schema.MIGRATE_LIVE_BY_VERSION}
