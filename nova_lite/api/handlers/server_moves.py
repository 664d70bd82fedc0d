"""Server actions that move a server: ``resize``, ``confirmResize``,
``revertResize`` and the administrator's ``migrate`` (to a named
``host`` from 2.56).

Each answers 202 with no body once the move is under way (its outcome
shows in the server's status, its instance actions and
``GET /os-migrations``). Dispatched by ``server_actions``.
"""

from nova_lite.api.handlers import flavors
from nova_lite.api.schemas import server_moves as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.compute import move_api
from nova_lite import exception
from nova_lite.policies import server_moves as policies

api = move_api.MoveAPI()


def _can(req, rule, instance):
    req.context.can(rule, target={'project_id': instance.project_id,
                                  'user_id': instance.user_id})
    return req.context


def resize(req, instance, body):
    """202; 400 for an unknown or the same flavor, 403 over quota, 409
    unless the server is ACTIVE or SHUTOFF with no task."""
    context = _can(req, policies.RESIZE, instance)
    flavor_id = str(body['resize']['flavorRef'])
    try:
        # Only a flavor the caller may see: a private one their project
        # was not given is unknown here too.
        flavors.visible_flavor(context, flavor_id)
    except exception.FlavorNotFound:
        raise exception.InvalidInput(
            reason='Unable to find flavor %s' % flavor_id)
    api.resize(context, instance, flavor_id)
    return wsgi.json_response(status=202)


def confirm_resize(req, instance, body):
    """204, as Nova; 409 unless the server is in VERIFY_RESIZE."""
    context = _can(req, policies.CONFIRM_RESIZE, instance)
    api.confirm_resize(context, instance)
    return wsgi.json_response(status=204)


def revert_resize(req, instance, body):
    """202; 409 unless the server is in VERIFY_RESIZE."""
    context = _can(req, policies.REVERT_RESIZE, instance)
    api.revert_resize(context, instance)
    return wsgi.json_response(status=202)


_MIGRATE_V21 = validation._validator(schema.MIGRATE_V21)


def migrate(req, instance, body):
    """202 (administrators); 400 for an unknown host or the server's own,
    or for a host before 2.56; 409 unless the server is ACTIVE or SHUTOFF
    with no task."""
    if not req.api_version_request.matches('2.56'):
        validation.validate(_MIGRATE_V21, body)
    context = _can(req, policies.MIGRATE, instance)
    host = (body['migrate'] or {}).get('host')
    if host is not None:
        context = _can(req, policies.MIGRATE_HOST, instance)
    api.migrate(context, instance, host=host)
    return wsgi.json_response(status=202)


ACTIONS = {
    'resize': (schema.RESIZE, resize),
    'confirmResize': (schema.CONFIRM_RESIZE, confirm_resize),
    'revertResize': (schema.REVERT_RESIZE, revert_resize),
    'migrate': (schema.MIGRATE, migrate),
}
SCHEMA_VERSIONS = {'migrate': (('2.1', schema.MIGRATE_V21),
                               ('2.56', schema.MIGRATE))}
