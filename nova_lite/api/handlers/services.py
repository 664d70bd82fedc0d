"""/os-services: the daemons and their state (administrators).

Services are shown and found by Nova's binary names (``nova-compute``,
see service_names); the registered names work in filters and updates too.

PUT /os-services/enable, /disable and /disable-log-reason (Nova 2.1)
change a service's disabled flag; for a compute, its nodes' providers
get or lose COMPUTE_STATUS_DISABLED in the same request (see
Service.save), and the schedulers are told at once (the service and
trait writes publish their changes). From 2.11 services
show ``forced_down`` and PUT /os-services/force-down sets it: a forced
down service is down whatever its heartbeats say.
"""

from nova_lite.api import common
from nova_lite.api.handlers import service_by_id
from nova_lite.api.schemas import services as schema
from nova_lite.api import service_names
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite import availability_zones
from nova_lite import exception
from nova_lite import objects
from nova_lite.policies import services as policies

# From this version services are named by their uuid.
UUID_FOR_ID = '2.53'


def service_view(req, service, zones=None):
    """Nova's service (``forced_down`` from 2.11); ``zones`` is
    {host: zone} (availability_zones.host_zones)."""
    uuid_ids = req.api_version_request.matches(UUID_FOR_ID)
    view = {
        'id': service.uuid if uuid_ids else service.id,
        'binary': service_names.to_api(service.binary),
        'host': service.host,
        'zone': availability_zones.service_zone(service, zones or {}),
        'status': 'disabled' if service.disabled else 'enabled',
        'state': 'up' if service.is_up else 'down',
        'updated_at': common.isotime_usec(service.last_seen_up or
                                          service.updated_at),
        'disabled_reason': service.disabled_reason,
    }
    if req.api_version_request.matches('2.11'):
        view['forced_down'] = bool(service.forced_down)
    return view


@validation.query(schema.INDEX_QUERY)
def index(req):
    """200 {"services": [...]}, filtered by ?host= and ?binary=."""
    context = req.context
    context.can(policies.SERVICES % 'list', target={})
    services = objects.ServiceList.get_all(
        context,
        binary=service_names.from_api(common.last_param(req, 'binary')),
        host=common.last_param(req, 'host'))
    zones = _zones(context)
    return wsgi.json_response(
        {'services': [service_view(req, s, zones) for s in services]})


def _zones(context):
    return availability_zones.host_zones(
        objects.AggregateList.get_all(context))


def delete(req, service_id):
    """204; 400 for an id that is no integer (a uuid from 2.53), 404 for
    no such service, 409 for a compute still hosting servers or moves
    (``service_by_id``)."""
    service_by_id.delete(req, service_id,
                         req.api_version_request.matches(UUID_FOR_ID))
    return wsgi.json_response(status=204)


def _service(req, body):
    context = req.context
    context.can(policies.SERVICES % 'update', target={})
    host, binary = body['host'], service_names.from_api(body['binary'])
    try:
        return objects.Service.get_by_host_and_binary(context, host, binary)
    except exception.ServiceNotFound:
        raise exception.HostBinaryNotFound(host=host, binary=body['binary'])


def _set_disabled(req, body, disabled, reason=None):
    service = _service(req, body)
    host, binary = service.host, service.binary
    service.disabled = disabled
    service.disabled_reason = reason
    service.save()
    view = {'host': host, 'binary': service_names.to_api(binary),
            'status': 'disabled' if disabled else 'enabled'}
    if reason is not None:
        view['disabled_reason'] = reason
    return wsgi.json_response({'service': view})


@validation.body(schema.SERVICE_UPDATE)
def _enable(req, body):
    return _set_disabled(req, body, False)


@validation.body(schema.SERVICE_UPDATE)
def _disable(req, body):
    return _set_disabled(req, body, True)


@validation.body(schema.SERVICE_DISABLE_LOG_REASON)
def _disable_log_reason(req, body):
    return _set_disabled(req, body, True, body['disabled_reason'])


@validation.body(schema.SERVICE_FORCE_DOWN)
def _force_down(req, body):
    service = _service(req, body)
    service.forced_down = common.to_bool(body['forced_down'])
    service.save()
    return wsgi.json_response({'service': {
        'host': service.host,
        'binary': service_names.to_api(service.binary),
        'forced_down': service.forced_down}})


_ACTIONS = {'enable': _enable, 'disable': _disable,
            'disable-log-reason': _disable_log_reason}
# Actions of later microversions: (first version, handler).
_NEWER_ACTIONS = {'force-down': ('2.11', _force_down)}


def update(req, service_id):
    """Below 2.53, ``service_id`` is an action: 200 {"service": {host,
    binary, status[, disabled_reason]}}; 404 for an unknown action or
    service. From 2.53 it is a service's uuid (``service_by_id``)."""
    if req.api_version_request.matches(UUID_FOR_ID):
        service = service_by_id.update(req, service_id)
        return wsgi.json_response({'service': service_view(
            req, service, _zones(req.context))})
    action = service_id
    handler = _ACTIONS.get(action)
    newer = _NEWER_ACTIONS.get(action)
    if newer and req.api_version_request.matches(newer[0]):
        handler = newer[1]
    if handler is None:
        raise exception.NotFound(
            message='Unknown action %s on os-services' % action)
    return handler(req)
