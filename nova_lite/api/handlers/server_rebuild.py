"""Server actions ``rebuild`` and the administrator's ``evacuate``.

``rebuild`` answers 202 with the server (status REBUILD) and its new
``adminPass``; ``evacuate`` answers 200, with ``{"adminPass": ...}``
before 2.14 and no body from 2.14, as Nova does. Their outcome shows in
the server's status, its instance actions and (evacuate)
``GET /os-migrations``. Dispatched by ``server_actions``.

The arguments are Nova's, each from its microversion: ``description``
2.19, ``key_name`` 2.54, ``user_data`` 2.57 (in place of
``personality``), ``trusted_image_certificates`` 2.63 (null unsets
them), ``hostname`` 2.90 for a rebuild; ``onSharedStorage``
until 2.13, ``force`` from 2.29 to 2.67 and the STOPPED landing of 2.95
for an evacuation. A ``force`` is accepted where Nova takes it, but a
named host always goes through the scheduler's filters (Nova's behaviour
since 2.68): nova_lite never places a server past them.
"""

from nova_lite.api.handlers import server_view
from nova_lite.api.handlers import servers
from nova_lite.api.schemas import server_rebuild as schema
from nova_lite.api import common
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.compute import rebuild_api
from nova_lite import exception
from nova_lite.objects import fields
from nova_lite.policies import server_rebuild as policies

api = rebuild_api.RebuildAPI()

# Request argument -> the instance field a rebuild sets from it.
_REBUILD_FIELDS = {'name': 'display_name', 'metadata': 'metadata',
                   'description': 'description', 'key_name': 'key_name',
                   'hostname': 'hostname', 'user_data': 'user_data',
                   'trusted_image_certificates': 'trusted_certs'}
# The first version at which an evacuated server lands STOPPED.
STOPPED_EVACUATION_VERSION = '2.95'
_VALIDATORS = {}


def _can(req, rule, instance):
    req.context.can(rule, target={'project_id': instance.project_id,
                                  'user_id': instance.user_id})
    return req.context


def _validate_at_version(req, versions, body):
    """Validate ``body`` again with the schema of the request's version:
    an argument newer than it is a 400."""
    chosen = schema.for_version(versions, req.api_version_request)
    validator = _VALIDATORS.get(id(chosen))
    if validator is None:
        validator = _VALIDATORS[id(chosen)] = validation._validator(chosen)
    validation.validate(validator, body)


def rebuild(req, instance, body):
    """202 {"server": the server (REBUILD), with adminPass (and from 2.54
    key_name: a null one unsets the server's; from 2.57 user_data; from
    2.71 server_groups; from 2.75 every field of show)}; 400 for an
    unknown image or key pair or an image the flavor cannot hold, 403
    past the metadata quota, 409 unless ACTIVE, SHUTOFF or ERROR with no
    task."""
    context = _can(req, policies.REBUILD, instance)
    _validate_at_version(req, schema.REBUILD_VERSIONS, body)
    args = body['rebuild']
    changes = {field: args[name] for name, field in _REBUILD_FIELDS.items()
               if name in args}
    new_pass = args.get('adminPass') or servers._password()
    api.rebuild(context, instance, common.id_from_href(args['imageRef']),
                changes, new_pass=new_pass,
                preserve_ephemeral=common.to_bool(
                    args.get('preserve_ephemeral', False)))
    view = server_view.update_view(req, instance)
    if req.api_version_request.matches('2.54'):
        view['key_name'] = instance.key_name
    # user_data is answered apart (from 2.57), not as the administrators'
    # extended attribute of the full view (2.75).
    view.pop('OS-EXT-SRV-ATTR:user_data', None)
    if req.api_version_request.matches('2.57'):
        view['user_data'] = server_view.user_data(instance)
    view['adminPass'] = new_pass
    return wsgi.json_response({'server': view}, status=202)


def _evacuate_password(req, args, on_shared_storage):
    if req.api_version_request.matches('2.14'):
        return args.get('adminPass') or servers._password()
    if 'adminPass' in args:
        if on_shared_storage:
            raise exception.EvacuatePasswordOnSharedStorage()
        return args['adminPass']
    return None if on_shared_storage else servers._password()


def evacuate(req, instance, body):
    """200 (administrators), ``{"adminPass": ...}`` before 2.14; 404 for
    an unknown host, 400 for the server's own host or while its compute
    is up, 409 unless ACTIVE, SHUTOFF or ERROR with no task."""
    context = _can(req, policies.EVACUATE, instance)
    _validate_at_version(req, schema.EVACUATE_VERSIONS, body)
    args = body['evacuate']
    host = args.get('host')
    on_shared_storage = (None if req.api_version_request.matches('2.14')
                         else common.to_bool(args['onSharedStorage']))
    if common.to_bool(args.get('force', False)) and not host:
        raise exception.EvacuateForceWithoutHost()
    password = _evacuate_password(req, args, on_shared_storage)
    target_state = (fields.VMState.STOPPED
                    if req.api_version_request.matches(
                        STOPPED_EVACUATION_VERSION) else None)
    api.evacuate(context, instance, host=host,
                 on_shared_storage=on_shared_storage, new_pass=password,
                 target_state=target_state)
    if req.api_version_request.matches('2.14'):
        return wsgi.json_response(status=200)
    return wsgi.json_response({'adminPass': password}, status=200)


ACTIONS = {
    'rebuild': (schema.REBUILD, rebuild),
    'evacuate': (schema.EVACUATE, evacuate),
}
SCHEMA_VERSIONS = {
    'rebuild': schema.REBUILD_VERSIONS,
    'evacuate': schema.EVACUATE_VERSIONS,
}
