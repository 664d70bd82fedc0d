"""/servers: create, list, show, update and delete servers.

Responses keep Nova's shapes (``server_view``) so the openstack CLI,
openstacksdk and novaclient read them unchanged; create-time checks that
depend on the microversion are in ``server_checks``.
"""

import string

from nova_lite.api import common
from nova_lite.api.handlers import flavors
from nova_lite.api.handlers import server_checks
from nova_lite.api.handlers import server_list_filters
from nova_lite.api.handlers import server_view
from nova_lite.api.schemas import servers as schema
from nova_lite.api import server_states
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.compute import api as compute_api
from nova_lite import crypto
from nova_lite.db import api as db_api
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.policies import servers as policies

compute = compute_api.API()

_ADMIN_SORT_KEYS = ('host', 'node')
_PASSWORD_CHARS = string.ascii_letters + string.digits

# -- create --------------------------------------------------------------

def _parse_availability_zone(context, value):
    """(zone, forced host, forced node) from "zone[:host[:node]]"."""
    if not value or ':' not in value:
        return value, None, None
    context.can(policies.SERVERS % 'create:forced_host')
    zone, _sep, rest = value.partition(':')
    host, _sep, node = rest.partition(':')
    return zone or None, host or None, node or None


def _counts(server):
    min_count = int(server.get('min_count', 1))
    max_count = int(server.get('max_count', min_count))
    if min_count > max_count:
        raise exception.ValidationError(
            detail='min_count must be <= max_count')
    return min_count, max_count


def _flavor_for_build(context, flavor_ref):
    flavor_id = common.id_from_href(flavor_ref)
    try:
        # A private flavor the caller's project was not given is as
        # unknown to a boot as it is to GET /flavors (Nova's answer).
        return flavors.visible_flavor(context, flavor_id)
    except exception.FlavorNotFound:
        raise exception.FlavorNotFoundForBuild(flavor_id=flavor_id)


def _image_for_build(context, image_ref):
    image_id = common.id_from_href(image_ref)
    try:
        return image_api.get(context, image_id)
    except exception.ImageNotFound:
        raise exception.ImageNotFoundForBuild(image_id=image_id)


def _records_for_build(context, server):
    """(flavor, image) of a boot, after checking its key pair.

    The checks keep Nova's order (key pair, flavor, then image: a request
    wrong in several ways gets the first one's 400). With the image
    registry in this database they share one reader transaction, a
    checkout and a round trip fewer per boot; an image from another
    service is read outside it, not while holding a connection.
    """
    def read():
        _check_key_name(context, server.get('key_name'))
        return (_flavor_for_build(context, server['flavorRef']),
                _image_for_build(context, _image_ref(server)))

    if not image_api.reads_database():
        return read()
    with db_api.reader.using(context):
        return read()


def _check_key_name(context, key_name):
    """400 unless the caller has a key pair called ``key_name``."""
    if key_name is None:
        return
    try:
        objects.KeyPair.get_by_name(context, context.user_id, key_name)
    except exception.KeypairNotFound as exc:
        raise exception.InvalidKeypair(reason=exc.format_message())


def _scheduler_hints(body):
    return body.get('os:scheduler_hints',
                    body.get('OS-SCH-HNT:scheduler_hints')) or {}


def _password(length=12):
    return crypto.random_string(_PASSWORD_CHARS, length)


def _image_ref(server):
    """The image to boot: imageRef, or the image root disk of
    block_device_mapping_v2 (which the openstack CLI sends). Volumes and
    blank disks are refused: nova_lite has no block storage."""
    image_ref = server.get('imageRef') or None
    for bdm in server.get('block_device_mapping_v2') or ():
        if (bdm.get('source_type') != 'image'
                or bdm.get('destination_type', 'local') != 'local'):
            raise exception.InvalidRequest(
                reason='block_device_mapping_v2 may only give the image as '
                       'the local root disk: nova_lite has no volumes')
        if image_ref is None:
            image_ref = bdm.get('uuid')
        elif bdm.get('uuid') not in (None, image_ref):
            raise exception.InvalidRequest(
                reason='block_device_mapping_v2 names image %s but imageRef '
                       'is %s' % (bdm.get('uuid'), image_ref))
    if not image_ref:
        raise exception.InvalidRequest(
            reason='imageRef is required: nova_lite cannot boot from volume')
    return image_ref


@validation.body(schema.CREATE)
def create(req, body):
    """202 {"server": {id, links, OS-DCF:diskConfig, security_groups,
    adminPass}} with a Location header; 202 {"reservation_id": ...} when
    return_reservation_id is true."""
    context = req.context
    server = body['server']
    server_checks.check_description(req, server)
    server_checks.check_device_tags(req, server)
    server_checks.check_networks(req, server)
    server_checks.check_tags(req, server)
    server_checks.check_personality(req, server)
    server_checks.check_trusted_certs(req, server)
    server_checks.check_volume_type(req, server)
    zone, host, node = _parse_availability_zone(
        context, server.get('availability_zone'))
    context.can(policies.SERVERS % 'create',
                target={'project_id': context.project_id,
                        'user_id': context.user_id,
                        'availability_zone': zone})
    requested = server_checks.requested_destination(req, server, host, node)
    min_count, max_count = _counts(server)
    server_checks.check_hostname(req, server, max_count)
    flavor, image = _records_for_build(context, server)
    instances, reservation_id = compute.create(
        context, flavor, image, server['name'], min_count=min_count,
        max_count=max_count, metadata=server.get('metadata'),
        key_name=server.get('key_name'), availability_zone=zone,
        description=server.get('description'),
        tags=server.get('tags'),
        trusted_certs=server.get('trusted_image_certificates'),
        hostname=server.get('hostname'),
        user_data=server.get('user_data'),
        scheduler_hints=_scheduler_hints(body), forced_host=host,
        forced_node=node, requested_destination=requested)
    if common.to_bool(server.get('return_reservation_id', False)):
        return wsgi.json_response({'reservation_id': reservation_id},
                                  status=202)
    view = server_view.basic_view(req, instances[0])
    del view['name']
    view.update({'OS-DCF:diskConfig': 'MANUAL',
                 'security_groups': [{'name': 'default'}],
                 'adminPass': server.get('adminPass') or _password()})
    return wsgi.json_response({'server': view}, status=202, headers={
        'Location': view['links'][0]['href']})


# -- list ----------------------------------------------------------------

def _status_filters(req, context):
    """{vm_state[, task_state]} filters for ?status= (Nova's map: a status
    a task shows matches servers in that task), or None for "matches
    nothing"; from 2.38 a filter naming no status Nova knows is a 400."""
    statuses = [s.upper() for s in req.GET.getall('status')]
    if (req.api_version_request.matches('2.38') and
            server_states.KNOWN_STATUSES.isdisjoint(statuses)):
        raise exception.ValidationError(
            detail='Invalid status value: %s' % ', '.join(statuses))
    vm_states, task_states = server_states.states_for(statuses)
    if not vm_states:
        return None
    if fields.VMState.DELETED in vm_states and not context.is_admin:
        raise exception.Forbidden(
            reason='only administrators may list deleted instances')
    filters = {'vm_state': vm_states}
    if task_states is not None:
        filters['task_state'] = task_states
    return filters


def _list_filters(req, context, all_tenants):
    filters = {}
    name = common.last_param(req, 'name')
    if name:
        filters['name'] = name
    admin_filters = context.can(policies.SERVERS % 'allow_all_filters',
                                fatal=False)
    host = common.last_param(req, 'host')
    if host and admin_filters:
        filters['host'] = host
    project = common.last_param(req, 'project_id',
                                common.last_param(req, 'tenant_id'))
    if project and all_tenants:
        filters['project_id'] = project
    filters.update(server_view.tag_filters(req))
    filters.update(_change_filters(req))
    sort_key = common.last_param(req, 'sort_key', 'created_at')
    if sort_key in _ADMIN_SORT_KEYS and not admin_filters:
        raise exception.Forbidden(
            reason='only administrators can sort servers by %s' % sort_key)
    return filters, sort_key, common.last_param(req, 'sort_dir', 'desc')


def _change_filters(req):
    """changes-since (2.1), changes-before (2.66) and locked (2.73)
    filters. A change window lists deleted servers too, as Nova: a
    client polling for changes learns of the deletes."""
    filters = {}
    since, before = common.changes_window(req)
    if since is not None:
        filters['changes-since'] = since
    if before is not None:
        filters['changes-before'] = before
    if (req.api_version_request.matches(server_view.LOCKED_REASON_VERSION)
            and common.last_param(req, 'locked') is not None):
        filters['locked'] = server_checks.locked_filter(req)
    return filters


def _address_filtered(req, context):
    """True for a filter on a fixed address (``ip``, or ``ip6`` for
    administrators and from 2.5 for everyone): nova_lite's servers have
    no addresses, so it matches none, as Nova's address-less servers."""
    if common.last_param(req, 'ip'):
        return True
    if not common.last_param(req, 'ip6'):
        return False
    return (req.api_version_request.matches('2.5') or
            context.can(policies.SERVERS % 'allow_all_filters',
                        fatal=False))


_LIST_VALIDATORS = tuple(
    (version, validation._validator(query_schema))
    for version, query_schema in reversed(schema.LIST_QUERY_VERSIONS))


def _validate_list_query(req):
    """Validate the query again with the schema of the request's version
    (2.66 changes-before, 2.73 locked, 2.75 nothing unknown)."""
    for version, validator in _LIST_VALIDATORS:
        if req.api_version_request.matches(version):
            validation.validate(validator, validation.query_dict(req))
            return


def _get_servers(req, action, expected_attrs=None):
    _validate_list_query(req)
    context = req.context
    context.can(policies.SERVERS % action,
                target={'project_id': context.project_id})
    all_tenants = common.bool_param(req, 'all_tenants', False)
    if all_tenants:
        context.can(policies.SERVERS % (action + ':get_all_tenants'))
    filters, sort_key, sort_dir = _list_filters(req, context, all_tenants)
    if _address_filtered(req, context):
        return []
    try:
        filters.update(server_list_filters.build(req, context))
    except server_list_filters.MatchesNothing:
        return []
    if req.GET.getall('status'):
        status_filters = _status_filters(req, context)
        if status_filters is None:
            return []
        filters.update(status_filters)
    limit, marker = common.get_limit_and_marker(req)
    return compute.get_all(context, filters, limit=limit, marker=marker,
                           sort_key=sort_key, sort_dir=sort_dir,
                           expected_attrs=expected_attrs,
                           all_tenants=all_tenants)



@validation.query(schema.LIST_QUERY_ANY)
def index(req):
    """200 {"servers": [{id, name, links}]}, plus "servers_links" (next)
    when the page is full."""
    instances = _get_servers(req, 'index')
    return common.list_response(
        req, 'servers',
        [server_view.basic_view(req, i) for i in instances], 'servers')


@validation.query(schema.LIST_QUERY_ANY)
def detail(req):
    """200 {"servers": [detail, ...]}, plus "servers_links" (next) when
    the page is full."""
    instances = _get_servers(req, 'detail', expected_attrs=['fault'])
    admin_fields = server_view.show_admin_fields(req.context)
    statuses = server_view.host_statuses(req, instances)
    tags = server_view.tags(req, instances)
    shown = server_view.requested(req, instances)
    return common.list_response(
        req, 'servers',
        [server_view.detail_view(req, i, admin_fields, statuses, tags,
                                 shown)
         for i in instances],
        'servers/detail')


# For the OpenAPI document: what _validate_list_query checks, and the
# bodies answered.
index.query_schema_versions = schema.LIST_QUERY_VERSIONS
detail.query_schema_versions = schema.LIST_QUERY_VERSIONS
index.response_schema = schema.index_response
detail.response_schema = schema.detail_response


# -- one server ----------------------------------------------------------

def show(req, server_id):
    """200 {"server": detail}; 404 if not the caller's (or not at all)."""
    context = req.context
    instance = compute.get(context, server_id, expected_attrs=['fault'])
    context.can(policies.SERVERS % 'show',
                target={'project_id': instance.project_id})
    return wsgi.json_response(
        {'server': server_view.show_view(req, instance)})


show.response_schema = schema.show_response


def delete(req, server_id):
    """204: deletion started (or already under way)."""
    context = req.context
    instance = compute.get(context, server_id)
    context.can(policies.SERVERS % 'delete',
                target={'project_id': instance.project_id,
                        'user_id': instance.user_id})
    compute.delete(context, instance)
    return wsgi.json_response(status=204)


@validation.body(schema.UPDATE)
def update(req, server_id, body):
    """200 {"server": Nova's core view (from 2.75 the view of show)}
    with the new name; 404 for an unknown server, 409 when it is locked
    (to non-admins)."""
    context = req.context
    instance = compute.get(context, server_id, expected_attrs=['fault'])
    context.can(policies.SERVERS % 'update',
                target={'project_id': instance.project_id,
                        'user_id': instance.user_id})
    server_checks.check_description(req, body['server'])
    server_checks.check_hostname(req, body['server'])
    compute.update(context, instance, body['server'])
    return wsgi.json_response(
        {'server': server_view.update_view(req, instance)})
