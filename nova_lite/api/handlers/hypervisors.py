"""/os-hypervisors: the compute nodes (administrators), Nova's 2.1 view;
from 2.28 ``cpu_info`` is an object rather than its JSON text, and from
2.33 the list and list detail page (``limit``, ``marker``, with
``hypervisors_links`` when a page is full).

From 2.53 a node's ``id`` (and its service's) is its uuid; the list and
list detail take ``hypervisor_hostname_pattern`` (the nodes whose name
contains it, unpaged) and ``with_servers`` (show too), and
``{pattern}/search`` and ``{pattern}/servers`` (``hypervisor_search``)
are gone.

From 2.88 the detailed views keep only the node's identity, type,
version, address and service (no resource figures nor ``cpu_info``: ask
placement), show answers the node's ``uptime`` (null when its compute
cannot say), and ``statistics`` and ``{id}/uptime`` are gone (404).

A node's state (up/down) and status (enabled/disabled) are those of the
compute service on its host. Its used vCPUs, RAM and disk are
placement's now (reserved plus allocated), so a server counts from its
claim, not from its compute's next periodic report.
"""

from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import uuidutils

from nova_lite.api import common
from nova_lite.api.schemas import hypervisors as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.compute import diagnostics_api
from nova_lite import exception
from nova_lite import objects
from nova_lite.policies import hypervisors as policies

COMPUTE_BINARY = 'nova-lite-compute'
host_api = diagnostics_api.DiagnosticsAPI()
UUID_FOR_ID = '2.53'
# Nova's microversion that dropped the resource figures and statistics.
NO_RESOURCES = '2.88'
LOG = logging.getLogger(__name__)
_TOTALS = ('vcpus', 'memory_mb', 'local_gb', 'vcpus_used', 'memory_mb_used',
           'local_gb_used', 'running_vms', 'free_ram_mb', 'free_disk_gb',
           'current_workload', 'disk_available_least')


def _services_by_host(context):
    return {s.host: s for s in objects.ServiceList.get_all(
        context, binary=COMPUTE_BINARY)}


def _workload(node):
    # Builds and deletes in progress, as the compute reports them.
    try:
        return int((node.stats or {}).get('io_workload') or 0)
    except (TypeError, ValueError):
        return 0


def uuid_ids(req):
    """True if ``req`` names nodes and services by uuid (2.53)."""
    return req is not None and req.api_version_request.matches(UUID_FOR_ID)


def node_id(req, node):
    return node.uuid if uuid_ids(req) else node.id


def basic_view(node, service, req=None):
    up = service is not None and service.is_up
    enabled = service is not None and not service.disabled
    return {'id': node_id(req, node),
            'hypervisor_hostname': node.hypervisor_hostname,
            'state': 'up' if up else 'down',
            'status': 'enabled' if enabled else 'disabled'}


def _cpu_info(req, node):
    """The node's cpu_info: JSON text before 2.28, an object from 2.28
    ({} when the driver reported none)."""
    if req is None or not req.api_version_request.matches('2.28'):
        return node.cpu_info
    try:
        return jsonutils.loads(node.cpu_info) if node.cpu_info else {}
    except ValueError:
        return {}


def _service_view(req, node, service):
    if service is None:
        service_id = None
    else:
        service_id = service.uuid if uuid_ids(req) else service.id
    return {'id': service_id, 'host': node.host,
            'disabled_reason': service.disabled_reason if service else None}


def _resource_figures(node, req):
    free_disk = node.local_gb - node.local_gb_used
    return {
        'vcpus': node.vcpus, 'memory_mb': node.memory_mb,
        'local_gb': node.local_gb, 'vcpus_used': node.vcpus_used,
        'memory_mb_used': node.memory_mb_used,
        'local_gb_used': node.local_gb_used,
        'running_vms': node.running_vms,
        'cpu_info': _cpu_info(req, node),
        'free_ram_mb': node.memory_mb - node.memory_mb_used,
        'free_disk_gb': free_disk,
        'disk_available_least': free_disk,
        'current_workload': _workload(node),
    }


def detail_view(node, service, req=None):
    """The detailed view; with the resource figures before 2.88."""
    view = basic_view(node, service, req)
    view.update({
        'hypervisor_type': node.hypervisor_type,
        'hypervisor_version': node.hypervisor_version,
        'host_ip': node.host_ip,
        'service': _service_view(req, node, service),
    })
    if req is None or not req.api_version_request.matches(NO_RESOURCES):
        view.update(_resource_figures(node, req))
    return view


def _always_servers(req):
    """From 2.75 ``with_servers`` shows "servers" even when empty."""
    return req.api_version_request.matches('2.75')


def add_servers(context, node, view, always=False):
    """Put the node's servers in ``view`` as "servers": [{uuid, name}]
    (absent when it has none, as in Nova before 2.75, unless
    ``always``); return ``view``."""
    instances = objects.InstanceList.get_by_filters(
        context, {'host': node.host, 'node': node.hypervisor_hostname},
        sort_key='id', sort_dir='asc')
    if instances or always:
        view['servers'] = [{'uuid': i.uuid, 'name': i.name}
                           for i in instances]
    return view


def nodes(req, action):
    """[(node, its compute service or None)] once ``action`` is allowed."""
    context = req.context
    context.can(policies.HYPERVISORS % action, target={})
    services = _services_by_host(context)
    return [(node, services.get(node.host))
            for node in objects.ComputeNodeList.get_all_used_now(context)]


def matching(pairs, pattern):
    """The (node, service) pairs whose node name contains ``pattern``;
    HypervisorNotFoundForPattern (404) if none does."""
    found = [(node, svc) for node, svc in pairs
             if pattern in node.hypervisor_hostname]
    if not found:
        raise exception.HypervisorNotFoundForPattern(pattern=pattern)
    return found


_V233_QUERY = validation._validator(schema.INDEX_QUERY_V233)
_V253_QUERY = validation._validator(schema.INDEX_QUERY_V253)
_V253_SHOW_QUERY = validation._validator(schema.SHOW_QUERY_V253)


def _page(req, pairs):
    """The page of ``pairs`` after the marker (an id, a uuid from 2.53;
    400 if it names no node), at most ``limit`` long."""
    limit, marker = common.get_limit_and_marker(req)
    pairs.sort(key=lambda pair: pair[0].id)
    if marker is not None:
        ids = [str(node_id(req, node)) for node, _svc in pairs]
        if marker not in ids:
            raise exception.MarkerNotFound(marker=marker)
        pairs = pairs[ids.index(marker) + 1:]
    return pairs[:limit]


def _by_pattern(req, pairs, pattern):
    if 'limit' in req.GET or 'marker' in req.GET:
        raise exception.ValidationError(
            detail='Paging over hypervisors with the '
                   'hypervisor_hostname_pattern query parameter is not '
                   'supported.')
    return matching(pairs, pattern)


def _listed(req, action, view, collection):
    """All nodes before 2.33; from 2.33 a page of them, with the next link
    when it is full; from 2.53 those matching a name pattern instead, and
    their servers if asked."""
    pairs = nodes(req, action)
    version = req.api_version_request
    if not version.matches('2.33'):
        return wsgi.json_response({'hypervisors': [
            view(node, svc) for node, svc in pairs]})
    if not version.matches(UUID_FOR_ID):
        validation.validate(_V233_QUERY, validation.query_dict(req))
        return common.list_response(
            req, 'hypervisors',
            [view(node, svc) for node, svc in _page(req, pairs)], collection)
    validation.validate(_V253_QUERY, validation.query_dict(req))
    with_servers = common.bool_param(req, 'with_servers', False)
    pattern = common.last_param(req, 'hypervisor_hostname_pattern')
    page = (_by_pattern(req, pairs, pattern) if pattern is not None
            else _page(req, pairs))
    views = [view(node, svc) for node, svc in page]
    if with_servers:
        for (node, _svc), item in zip(page, views, strict=True):
            add_servers(req.context, node, item,
                        always=_always_servers(req))
    if pattern is not None:
        return wsgi.json_response({'hypervisors': views})
    return common.list_response(req, 'hypervisors', views, collection)


@validation.query(schema.INDEX_QUERY)
def index(req):
    """200 {"hypervisors": [{id, hypervisor_hostname, state, status}]}."""
    return _listed(req, 'list', lambda node, svc: basic_view(node, svc, req),
                   'os-hypervisors')


@validation.query(schema.INDEX_QUERY)
def detail(req):
    """200 {"hypervisors": [detail, ...]}."""
    return _listed(req, 'list-detail',
                   lambda node, svc: detail_view(node, svc, req),
                   'os-hypervisors/detail')


# For the OpenAPI document: what _listed checks at each version.
index.query_schema_versions = detail.query_schema_versions = (
    ('2.1', schema.INDEX_QUERY), ('2.33', schema.INDEX_QUERY_V233),
    (UUID_FOR_ID, schema.INDEX_QUERY_V253))


def _find(req, action, hypervisor_id):
    """The (node, service) of the id in the URL: an integer before 2.53
    (404 otherwise), a uuid from 2.53 (400 otherwise); 404 if unknown."""
    if uuid_ids(req) and not uuidutils.is_uuid_like(hypervisor_id):
        raise exception.ValidationError(
            detail='Invalid uuid %s' % hypervisor_id)
    for node, svc in nodes(req, action):
        if str(node_id(req, node)) == hypervisor_id:
            return node, svc
    raise exception.ComputeNodeNotFound(node=hypervisor_id)


def show(req, hypervisor_id):
    """200 {"hypervisor": detail} (with its servers if asked, from 2.53,
    and its uptime from 2.88); 404 for an unknown id."""
    with_servers = False
    if uuid_ids(req):
        validation.validate(_V253_SHOW_QUERY, validation.query_dict(req))
        with_servers = common.bool_param(req, 'with_servers', False)
    node, svc = _find(req, 'show', hypervisor_id)
    view = detail_view(node, svc, req)
    if req.api_version_request.matches(NO_RESOURCES):
        view['uptime'] = _uptime_or_none(req, node, svc, hypervisor_id)
    if with_servers:
        add_servers(req.context, node, view, always=_always_servers(req))
    return wsgi.json_response({'hypervisor': view})


# For the OpenAPI document: what show checks from 2.53.
show.query_schema_versions = ((UUID_FOR_ID, schema.SHOW_QUERY_V253),)


def _uptime_or_none(req, node, service, hypervisor_id):
    """The node's uptime line, or None when its compute is down, silent
    or cannot say (Nova's show at 2.88 does not fail for it)."""
    if service is None:
        return None
    try:
        return host_api.get_host_uptime(req.context, service, hypervisor_id)
    except (exception.ComputeServiceUnavailable,
            exception.HypervisorUptimeNotAvailable,
            exception.ServiceUnavailable) as exc:
        LOG.info('No uptime for hypervisor %s: %s', hypervisor_id, exc)
        return None


@common.removed_at(NO_RESOURCES)
def statistics(req):
    """200 {"hypervisor_statistics": {count, and the sums of the detail
    counters}}."""
    totals = dict.fromkeys(_TOTALS, 0)
    pairs = nodes(req, 'statistics')
    for node, svc in pairs:
        view = detail_view(node, svc)
        for key in _TOTALS:
            totals[key] += view[key]
    totals['count'] = len(pairs)
    return wsgi.json_response({'hypervisor_statistics': totals})


@common.removed_at(NO_RESOURCES)
def uptime(req, hypervisor_id):
    """200 {"hypervisor": {id, hypervisor_hostname, state, status,
    uptime}}, the uptime line its compute reports (as the ``uptime``
    command prints it); 404 for an unknown id, 400 when its compute
    service is down, 501 when the compute cannot say (pinned below RPC
    1.7, or a driver without the call)."""
    node, svc = _find(req, 'uptime', hypervisor_id)
    if svc is None:
        raise exception.ComputeServiceUnavailable(host=node.host)
    view = basic_view(node, svc, req)
    view['uptime'] = host_api.get_host_uptime(req.context, svc,
                                              hypervisor_id)
    return wsgi.json_response({'hypervisor': view})
