"""/flavors: list, show, and (administrators) create and delete flavors.

Every user sees public, enabled flavors and the private ones their
project was given access to (os-flavor-access); administrators also see
the disabled ones and, with ?is_public=false or none, all private ones.
From 2.55 a flavor has a description, given at create, changed with PUT
/flavors/{id} and shown in every flavor view (the list too). From 2.61
the detailed views show its ``extra_specs`` to callers allowed to list
them (policy ``os-flavor-extra-specs:index``), as Nova.
"""

from oslo_utils import strutils
from oslo_utils import uuidutils

from nova_lite.api import common
from nova_lite.api.schemas import flavors as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import flavor as flavor_obj
from nova_lite.policies import flavor_extra_specs as extra_spec_policies
from nova_lite.policies import flavors as policies


DESCRIPTION_VERSION = '2.55'
EXTRA_SPECS_VERSION = '2.61'
# From 2.75 a flavor without swap shows 0, not "".
SWAP_ZERO_VERSION = '2.75'


def basic_view(req, flavor):
    view = {'id': flavor.flavorid, 'name': flavor.name,
            'links': common.links(req, 'flavors', flavor.flavorid)}
    if req.api_version_request.matches(DESCRIPTION_VERSION):
        view['description'] = flavor.description
    return view


def shows_extra_specs(req):
    """True if the detailed views show extra specs to this caller."""
    return (req.api_version_request.matches(EXTRA_SPECS_VERSION)
            and req.context.can(extra_spec_policies.EXTRA_SPECS % 'index',
                                fatal=False))


def detail_view(req, flavor, extra_specs=None):
    """Nova's 2.1 flavor: swap is "" when 0, as Nova shows it (0 from
    2.75); with ``extra_specs`` (default: ``shows_extra_specs``) from
    2.61."""
    view = basic_view(req, flavor)
    if extra_specs is None:
        extra_specs = shows_extra_specs(req)
    if extra_specs:
        view['extra_specs'] = (dict(flavor.extra_specs)
                               if flavor.obj_attr_is_set('extra_specs')
                               else {})
    view.update({
        'ram': flavor.memory_mb,
        'disk': flavor.root_gb,
        'vcpus': flavor.vcpus,
        'swap': (flavor.swap if req.api_version_request.matches(
            SWAP_ZERO_VERSION) else flavor.swap or ''),
        'rxtx_factor': flavor.rxtx_factor,
        'OS-FLV-EXT-DATA:ephemeral': flavor.ephemeral_gb,
        'OS-FLV-DISABLED:disabled': flavor.disabled,
        'os-flavor-access:is_public': flavor.is_public,
    })
    return view


def _is_public_filter(value):
    """?is_public: absent -> public only, "none" -> all, else a boolean."""
    if value is None:
        return True
    if value.lower() == 'none':
        return None
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise exception.ValidationError(
            detail='Invalid is_public filter [%s]' % value)


def _get_flavors(req):
    context = req.context
    context.can(policies.FLAVORS % 'index')
    see_all = context.can(policies.FLAVORS % 'list_all', fatal=False)
    filters = {'is_public': (_is_public_filter(common.last_param(
        req, 'is_public')) if see_all else True),
        'project_id': context.project_id}
    min_ram = common.last_param(req, 'minRam')
    if min_ram is not None:
        filters['min_memory_mb'] = int(min_ram)
    min_disk = common.last_param(req, 'minDisk')
    if min_disk is not None:
        filters['min_root_gb'] = int(min_disk)
    limit, marker = common.get_limit_and_marker(req)
    try:
        flavors = objects.FlavorList.get_all(
            context, filters,
            sort_key=common.last_param(req, 'sort_key', 'flavorid'),
            sort_dir=common.last_param(req, 'sort_dir', 'asc'),
            limit=limit, marker=marker)
    except exception.FlavorNotFound:
        raise exception.MarkerNotFound(marker=marker)
    return [f for f in flavors if see_all or not f.disabled]



@validation.query(schema.INDEX_QUERY)
def index(req):
    """200 {"flavors": [{id, name, links}]}, plus "flavors_links" (next)
    when the page is full."""
    return common.list_response(
        req, 'flavors', [basic_view(req, f) for f in _get_flavors(req)],
        'flavors')


@validation.query(schema.INDEX_QUERY)
def detail(req):
    """200 {"flavors": [detail, ...]}, plus "flavors_links" (next) when
    the page is full."""
    extra_specs = shows_extra_specs(req)
    return common.list_response(
        req, 'flavors',
        [detail_view(req, f, extra_specs) for f in _get_flavors(req)],
        'flavors/detail')


def visible_flavor(context, flavor_id):
    """The flavor, if the caller may see it (public, their project has
    access, or they see all); FlavorNotFound (404) if not."""
    flavor = objects.Flavor.get_by_flavor_id(context, flavor_id)
    if (not flavor.is_public and
            not context.can(policies.FLAVORS % 'list_all', fatal=False) and
            context.project_id not in flavor_obj.get_access_projects(
                context, flavor_id)):
        raise exception.FlavorNotFound(flavor_id=flavor_id)
    return flavor


def show(req, flavor_id):
    """200 {"flavor": detail}; 404 for an unknown (or hidden) flavor."""
    context = req.context
    context.can(policies.FLAVORS % 'show')
    flavor = visible_flavor(context, flavor_id)
    return wsgi.json_response({'flavor': detail_view(req, flavor)})


_CREATE_V255 = validation._validator(schema.CREATE_V255)
_CREATE_V21 = validation._validator(schema.CREATE)


@validation.body(schema.CREATE_V255)
def create(req, body):
    """200 {"flavor": detail} (Nova answers 200, not 201); 409 if the id
    or name is taken; 400 for a description before 2.55."""
    context = req.context
    context.can(policies.FLAVOR_MANAGE % 'create', target={})
    described = req.api_version_request.matches(DESCRIPTION_VERSION)
    validation.validate(_CREATE_V255 if described else _CREATE_V21, body)
    values = body['flavor']
    flavor = objects.Flavor(
        context=context,
        flavorid=str(values.get('id') or uuidutils.generate_uuid()),
        name=values['name'],
        memory_mb=int(values['ram']),
        vcpus=int(values['vcpus']),
        root_gb=int(values['disk']),
        ephemeral_gb=int(values.get('OS-FLV-EXT-DATA:ephemeral', 0)),
        swap=int(values.get('swap', 0)),
        rxtx_factor=float(values.get('rxtx_factor', 1.0)),
        is_public=common.to_bool(
            values.get('os-flavor-access:is_public', True)),
        disabled=False,
        description=values.get('description'))
    flavor.create()
    return wsgi.json_response({'flavor': detail_view(req, flavor)})


# For the OpenAPI document: what create checks at each version.
create.body_schema_versions = (('2.1', schema.CREATE),
                               (DESCRIPTION_VERSION, schema.CREATE_V255))


@common.added_at(DESCRIPTION_VERSION)
@validation.body(schema.UPDATE)
def update(req, flavor_id, body):
    """200 {"flavor": detail} with the new description (2.55); 404 for an
    unknown flavor, and before 2.55."""
    context = req.context
    context.can(policies.FLAVOR_MANAGE % 'update', target={})
    flavor_obj.update_description(context, flavor_id,
                                  body['flavor']['description'])
    flavor = objects.Flavor.get_by_flavor_id(context, flavor_id)
    return wsgi.json_response({'flavor': detail_view(req, flavor)})


# For the OpenAPI document: the bodies the views above answer.
index.response_schema = schema.index_response
detail.response_schema = schema.detail_response
show.response_schema = create.response_schema = schema.flavor_response
update.response_schema = schema.flavor_response


def delete(req, flavor_id):
    """202 with no body; 404 for an unknown flavor. Servers built with it
    keep their copy."""
    context = req.context
    context.can(policies.FLAVOR_MANAGE % 'delete', target={})
    flavor = objects.Flavor.get_by_flavor_id(context, flavor_id)
    flavor.destroy()
    return wsgi.json_response(status=202)
