"""Flavor access: which projects may use a private flavor.

``GET /flavors/{id}/os-flavor-access`` lists them; ``POST
/flavors/{id}/action`` with ``addTenantAccess`` or ``removeTenantAccess``
changes the list (administrators). A project on the list sees the flavor
in its lists and can show it; a public flavor has no list.
"""

from nova_lite.api.schemas import flavor_access as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import flavor as flavor_obj
from nova_lite.policies import flavor_access as policies


def _access_response(context, flavor_id):
    return wsgi.json_response({'flavor_access': [
        {'flavor_id': flavor_id, 'tenant_id': project_id}
        for project_id in flavor_obj.get_access_projects(context,
                                                         flavor_id)]})


def index(req, flavor_id):
    """200 {"flavor_access": [{flavor_id, tenant_id}]}; 404 for an
    unknown or a public flavor (it has no list)."""
    context = req.context
    context.can(policies.FLAVOR_ACCESS, target={})
    flavor = objects.Flavor.get_by_flavor_id(context, flavor_id)
    if flavor.is_public:
        raise exception.FlavorAccessListOfPublicFlavor(flavor_id=flavor_id)
    return _access_response(context, flavor_id)


@validation.body(schema.ADD_TENANT_ACCESS)
def _add(req, flavor_id, body):
    context = req.context
    context.can(policies.FLAVOR_ACCESS_ACTION % 'add_tenant_access',
                target={})
    flavor_obj.add_access(context, flavor_id,
                          body['addTenantAccess']['tenant'])
    return _access_response(context, flavor_id)


@validation.body(schema.REMOVE_TENANT_ACCESS)
def _remove(req, flavor_id, body):
    context = req.context
    context.can(policies.FLAVOR_ACCESS_ACTION % 'remove_tenant_access',
                target={})
    flavor_obj.remove_access(context, flavor_id,
                             body['removeTenantAccess']['tenant'])
    return _access_response(context, flavor_id)


_ACTIONS = {'addTenantAccess': _add, 'removeTenantAccess': _remove}


def action(req, flavor_id):
    """200 {"flavor_access": [...]} after the change; 409 when adding to a
    public flavor or a project already there, 404 when removing one that
    is not, or for an unknown flavor."""
    body = validation.parse_json_body(req)
    names = list(body) if isinstance(body, dict) else []
    if len(names) != 1 or names[0] not in _ACTIONS:
        raise exception.ValidationError(
            detail='The body must have exactly one of %s.'
                   % ', '.join(sorted(_ACTIONS)))
    return _ACTIONS[names[0]](req, flavor_id)


action.body_schemas = [handler.body_schema for handler in _ACTIONS.values()]
