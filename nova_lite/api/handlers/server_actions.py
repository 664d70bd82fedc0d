"""POST /servers/{id}/action: one entry point, one handler per action.

The body's one key names the action (``{"reboot": {"type": "SOFT"}}``).
``ACTIONS`` maps each name to its schema and handler; action modules
(``server_power``, and those of moves and shelving) each define an
``ACTIONS`` dict of their own, merged here explicitly, so the full list
of what a server can be asked is readable in one place.

The dispatcher answers 400 for a body that does not name exactly one
known action (naming it) or breaks the action's schema, 404 for a server
the caller cannot see, and turns a state conflict into Nova's 409
message. A handler ``handler(req, instance, body)`` checks policy and
returns the response (202 with no body for most).
"""

from nova_lite.api.handlers import server_backup
from nova_lite.api.handlers import server_live_migrate
from nova_lite.api.handlers import server_moves
from nova_lite.api.handlers import server_network_actions
from nova_lite.api.handlers import server_power
from nova_lite.api.handlers import server_rebuild
from nova_lite.api.handlers import server_shelve
from nova_lite.api import validation
from nova_lite.compute import api as compute_api
from nova_lite import exception

compute = compute_api.API()

# action name -> (schema, handler)
ACTIONS = {}
# action name -> the microversion Nova removed it at (404 from there).
REMOVED_AT = {}
# action name -> [(first version, schema)]: the schemas its handler
# validates with again at the request's version (for the OpenAPI
# document; the dispatcher checks the union in ACTIONS).
SCHEMA_VERSIONS = {}
# Action modules, each with an ACTIONS dict {name: (schema, handler)}
# and, if Nova removed their actions, REMOVED_AT (a version); if their
# handlers validate by version, SCHEMA_VERSIONS {name: [(first,
# schema)]}.
ACTION_MODULES = (server_power, server_moves, server_rebuild, server_shelve,
                  server_backup, server_live_migrate, server_network_actions)


def register(actions, removed_at=None, schema_versions=None):
    """Add {name: (schema, handler)}; a name may not be taken twice."""
    for name, (schema, handler) in actions.items():
        if name in ACTIONS:
            raise ValueError('server action %s is registered twice' % name)
        ACTIONS[name] = (validation._validator(schema), handler)
        if removed_at:
            REMOVED_AT[name] = removed_at
    SCHEMA_VERSIONS.update(schema_versions or {})


for _module in ACTION_MODULES:
    register(_module.ACTIONS, getattr(_module, 'REMOVED_AT', None),
             getattr(_module, 'SCHEMA_VERSIONS', None))


def _action_schemas(version):
    """The schema of each action served at ``version`` (an
    APIVersionRequest), as the handler checks it at that version."""
    schemas = []
    for name, (validator, _handler) in ACTIONS.items():
        removed = REMOVED_AT.get(name)
        if removed and version.matches(removed):
            continue
        versions = SCHEMA_VERSIONS.get(name)
        schemas.append(validation.for_version(versions, version)
                       if versions else validator.schema)
    return schemas


def _action_name(req, body):
    if not isinstance(body, dict) or not body:
        raise exception.ValidationError(
            detail='the body must be an object naming one action')
    if len(body) > 1:
        raise exception.ValidationError(
            detail='the body names several actions (%s); give one'
                   % ', '.join(sorted(body)))
    name = next(iter(body))
    if name not in ACTIONS:
        raise exception.InstanceUnknownAction(action=name)
    removed = REMOVED_AT.get(name)
    if removed and req.api_version_request.matches(removed):
        raise exception.NotFound()
    return name


def action(req, server_id):
    """202 with no body (most actions); 400 for an
    unknown action or bad arguments, 404 for an unknown server, 409 for a
    state the action cannot start from or a locked server. As in Nova,
    ``rebuild`` answers 202 with the server, ``createImage`` and
    ``createBackup`` 202 with its Location (or, from 2.45, the image
    id), ``evacuate`` 200 (with ``adminPass`` before 2.14) and
    ``confirmResize`` 204. An action Nova removed (the network ones at
    2.44) is a 404 from then."""
    body = validation.parse_json_body(req)
    name = _action_name(req, body)
    validator, handler = ACTIONS[name]
    validation.validate(validator, body)
    instance = compute.get(req.context, server_id)
    try:
        return handler(req, instance, body)
    except exception.InstanceInvalidState as exc:
        raise exception.InstanceActionInvalidState(
            action=name, instance_uuid=instance.uuid,
            attr=exc.kwargs.get('attr', 'vm_state'),
            state=exc.kwargs.get('state'))


# For the OpenAPI document (api/openapi.py): one schema per action, and
# the successes other than 202 (evacuate, confirmResize).
action.body_schemas = _action_schemas
action.also_answers = ('200', '204')
