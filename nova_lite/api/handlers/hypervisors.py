"""/os-hypervisors: the compute nodes (administrators), Nova's 2.1 view;
from 2.28 ``cpu_info`` is an object rather than its JSON text, and from
2.33 the list and list detail page (``limit``, ``marker`` an id, with
``hypervisors_links`` when a page is full).

A node's state (up/down) and status (enabled/disabled) are those of the
compute service on its host. ``{pattern}/search`` and ``{pattern}/servers``
find nodes whose hypervisor_hostname contains the pattern.
"""

from oslo_serialization import jsonutils

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


def basic_view(node, service):
    up = service is not None and service.is_up
    enabled = service is not None and not service.disabled
    return {'id': node.id, 'hypervisor_hostname': node.hypervisor_hostname,
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


def detail_view(node, service, req=None):
    view = basic_view(node, service)
    free_disk = node.local_gb - node.local_gb_used
    view.update({
        'vcpus': node.vcpus, 'memory_mb': node.memory_mb,
        'local_gb': node.local_gb, 'vcpus_used': node.vcpus_used,
        'memory_mb_used': node.memory_mb_used,
        'local_gb_used': node.local_gb_used,
        'hypervisor_type': node.hypervisor_type,
        'hypervisor_version': node.hypervisor_version,
        'host_ip': node.host_ip,
        'running_vms': node.running_vms,
        'cpu_info': _cpu_info(req, node),
        'free_ram_mb': node.memory_mb - node.memory_mb_used,
        'free_disk_gb': free_disk,
        'disk_available_least': free_disk,
        'current_workload': _workload(node),
        'service': {
            'id': service.id if service else None,
            'host': node.host,
            'disabled_reason': service.disabled_reason if service else None,
        },
    })
    return view


def _nodes(req, action):
    context = req.context
    context.can(policies.HYPERVISORS % action, target={})
    services = _services_by_host(context)
    return [(node, services.get(node.host))
            for node in objects.ComputeNodeList.get_all(context)]


_V233_QUERY = validation._validator(schema.INDEX_QUERY_V233)


def _listed(req, action, view, collection):
    """All nodes before 2.33; from 2.33 a page of them by id (400 for a
    marker that is no node's id), with the next link when it is full."""
    nodes = _nodes(req, action)
    if not req.api_version_request.matches('2.33'):
        return wsgi.json_response({'hypervisors': [
            view(node, svc) for node, svc in nodes]})
    validation.validate(_V233_QUERY, validation.query_dict(req))
    limit, marker = common.get_limit_and_marker(req)
    nodes.sort(key=lambda pair: pair[0].id)
    if marker is not None:
        ids = [node.id for node, _svc in nodes]
        if int(marker) not in ids:
            raise exception.MarkerNotFound(marker=marker)
        nodes = nodes[ids.index(int(marker)) + 1:]
    return common.list_response(
        req, 'hypervisors', [view(node, svc) for node, svc in nodes[:limit]],
        collection)


@validation.query(schema.INDEX_QUERY)
def index(req):
    """200 {"hypervisors": [{id, hypervisor_hostname, state, status}]}."""
    return _listed(req, 'list', basic_view, 'os-hypervisors')


@validation.query(schema.INDEX_QUERY)
def detail(req):
    """200 {"hypervisors": [detail, ...]}."""
    return _listed(req, 'list-detail',
                   lambda node, svc: detail_view(node, svc, req),
                   'os-hypervisors/detail')


def show(req, hypervisor_id):
    """200 {"hypervisor": detail}; 404 for an unknown id."""
    for node, svc in _nodes(req, 'show'):
        if str(node.id) == hypervisor_id:
            return wsgi.json_response(
                {'hypervisor': detail_view(node, svc, req)})
    raise exception.ComputeNodeNotFound(node=hypervisor_id)


def statistics(req):
    """200 {"hypervisor_statistics": {count, and the sums of the detail
    counters}}."""
    totals = dict.fromkeys(_TOTALS, 0)
    nodes = _nodes(req, 'statistics')
    for node, svc in nodes:
        view = detail_view(node, svc)
        for key in _TOTALS:
            totals[key] += view[key]
    totals['count'] = len(nodes)
    return wsgi.json_response({'hypervisor_statistics': totals})


def uptime(req, hypervisor_id):
    """200 {"hypervisor": {id, hypervisor_hostname, state, status,
    uptime}}, the uptime line its compute reports (as the ``uptime``
    command prints it); 404 for an unknown id, 400 when its compute
    service is down, 501 when the compute cannot say (pinned below RPC
    1.7, or a driver without the call)."""
    for node, svc in _nodes(req, 'uptime'):
        if str(node.id) == hypervisor_id:
            if svc is None:
                raise exception.ComputeServiceUnavailable(host=node.host)
            view = basic_view(node, svc)
            view['uptime'] = host_api.get_host_uptime(
                req.context, svc, hypervisor_id)
            return wsgi.json_response({'hypervisor': view})
    raise exception.ComputeNodeNotFound(node=hypervisor_id)


def _matching(req, action, pattern):
    found = [(node, svc) for node, svc in _nodes(req, action)
             if pattern in node.hypervisor_hostname]
    if not found:
        raise exception.HypervisorNotFoundForPattern(pattern=pattern)
    return found


def search(req, hypervisor_hostname_pattern):
    """200 {"hypervisors": [{id, hypervisor_hostname, state, status}]} of
    the nodes whose name contains the pattern; 404 if none does."""
    return wsgi.json_response({'hypervisors': [
        basic_view(node, svc) for node, svc in _matching(
            req, 'search', hypervisor_hostname_pattern)]})


def servers(req, hypervisor_hostname_pattern):
    """200 {"hypervisors": [basic view + "servers": [{uuid, name}]]}: the
    servers on each matching node ("servers" absent when there are none,
    as in Nova); 404 if no node matches."""
    context = req.context
    views = []
    for node, svc in _matching(req, 'servers', hypervisor_hostname_pattern):
        view = basic_view(node, svc)
        instances = objects.InstanceList.get_by_filters(
            context, {'host': node.host, 'node': node.hypervisor_hostname},
            sort_key='id', sort_dir='asc')
        if instances:
            view['servers'] = [{'uuid': i.uuid, 'name': i.name}
                               for i in instances]
        views.append(view)
    return wsgi.json_response({'hypervisors': views})
