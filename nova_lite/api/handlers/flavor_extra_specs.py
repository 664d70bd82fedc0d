"""/flavors/{flavor_id}/os-extra_specs: a flavor's extra specs.

Everyone who sees the flavor reads them; administrators add, change and
remove them. Values of well-known keys are checked (see
schemas.flavor_extra_specs), and from 2.86 unknown keys in the namespaces
nova_lite checks are refused; numbers and booleans are stored as strings,
as Nova stores them. Servers keep the specs of the flavor they were built
with: a change applies to new servers only.
"""

from nova_lite.api.handlers import flavors
from nova_lite.api.schemas import flavor_extra_specs as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite import exception
from nova_lite.objects import flavor as flavor_obj
from nova_lite.policies import flavor_extra_specs as policies

# Nova's microversion that refuses unknown keys in known namespaces.
STRICT_VERSION = '2.86'


def _as_strings(req, specs):
    """Values as stored: JSON true/false as "True"/"False", as Nova;
    400 for a bad value or (from 2.86) an unknown key."""
    strict = req.api_version_request.matches(STRICT_VERSION)
    result = {}
    for key, value in specs.items():
        value = str(value)
        if len(value) > 255:
            raise exception.ValidationError(
                detail='The value of extra spec %s is longer than 255 '
                       'characters.' % key)
        schema.validate(key, value, strict)
        result[key] = value
    return result


def index(req, flavor_id):
    """200 {"extra_specs": {key: value}} (the openstack CLI reads it for
    "flavor show")."""
    context = req.context
    context.can(policies.EXTRA_SPECS % 'index')
    flavor = flavors.visible_flavor(context, flavor_id)
    return wsgi.json_response({'extra_specs': dict(flavor.extra_specs)})


def show(req, flavor_id, key):
    """200 {key: value}; 404 if the flavor has no such extra spec."""
    context = req.context
    context.can(policies.EXTRA_SPECS % 'show')
    flavor = flavors.visible_flavor(context, flavor_id)
    if key not in flavor.extra_specs:
        raise exception.FlavorExtraSpecsNotFound(flavor_id=flavor_id,
                                                 key=key)
    return wsgi.json_response({key: flavor.extra_specs[key]})


@validation.body(schema.CREATE)
def create(req, flavor_id, body):
    """200 {"extra_specs": {the keys given}}: added or replaced; 400 for
    a bad value of a well-known key or, from 2.86, a key unknown in a
    namespace nova_lite checks (nothing is written), 404 for an unknown
    flavor."""
    context = req.context
    context.can(policies.EXTRA_SPECS % 'create', target={})
    specs = _as_strings(req, body['extra_specs'])
    flavor_obj.update_extra_specs(context, flavor_id, specs)
    return wsgi.json_response({'extra_specs': specs})


@validation.body(schema.UPDATE)
def update(req, flavor_id, key, body):
    """200 {key: value}; 400 when the body's one key is not the URL's."""
    context = req.context
    context.can(policies.EXTRA_SPECS % 'update', target={})
    if key not in body:
        raise exception.ValidationError(
            detail='Request body and URI mismatch: the body must set '
                   'exactly the key %s.' % key)
    specs = _as_strings(req, body)
    flavor_obj.update_extra_specs(context, flavor_id, specs)
    return wsgi.json_response(specs)


def delete(req, flavor_id, key):
    """200 with no body (as Nova); 404 for an unknown flavor or key."""
    context = req.context
    context.can(policies.EXTRA_SPECS % 'delete', target={})
    flavor_obj.delete_extra_spec(context, flavor_id, key)
    return wsgi.json_response(status=200)


