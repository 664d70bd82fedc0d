"""/os-hosts: hosts and their services, as Nova's 2.1 still answers.

``GET /os-hosts`` lists each service as {host_name, service (its topic),
zone}, ``?zone=`` filtering; ``GET /os-hosts/{host}`` shows a compute
host's resources: the total, what its nodes use now, what its servers
claim, and that per project. Nova carries the rest (enable/disable,
maintenance mode, power actions) to the virt driver; nova_lite's computes
have no such calls, so those answer 501, as Nova does for a driver
without them. The whole API is gone from 2.43 (404), as in Nova: hosts
are read through os-hypervisors and services changed through os-services.
"""

from nova_lite.api import common
from nova_lite.api.schemas import hosts as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite import availability_zones
from nova_lite import exception
from nova_lite import objects
from nova_lite.policies import hosts as policies

_PREFIX = 'nova-lite-'


def _topic(service):
    binary = service.binary
    return binary[len(_PREFIX):] if binary.startswith(_PREFIX) else binary


# Nova removed os-hosts at 2.43.
_until_2_43 = common.removed_at('2.43')


@_until_2_43
@validation.query(schema.INDEX_QUERY)
def index(req):
    """200 {"hosts": [{host_name, service, zone}]}, one per service."""
    context = req.context
    context.can(policies.HOSTS % 'list', target={})
    zone = common.last_param(req, 'zone')
    zones = availability_zones.host_zones(
        objects.AggregateList.get_all(context))
    hosts = []
    for service in objects.ServiceList.get_all(context):
        service_zone = availability_zones.service_zone(service, zones)
        if zone is None or zone == service_zone:
            hosts.append({'host_name': service.host,
                          'service': _topic(service), 'zone': service_zone})
    return wsgi.json_response({'hosts': hosts})


def _compute_host(context, host_name):
    try:
        objects.Service.get_by_host_and_binary(
            context, host_name, availability_zones.COMPUTE_BINARY)
    except exception.ServiceNotFound:
        raise exception.ComputeHostNotFound(host=host_name)


def _resource(host, project, cpu, memory_mb, disk_gb):
    return {'resource': {'host': host, 'project': project, 'cpu': cpu,
                         'memory_mb': memory_mb, 'disk_gb': disk_gb}}


@_until_2_43
def show(req, host_name):
    """200 {"host": [{"resource": {host, project, cpu, memory_mb,
    disk_gb}}]}: "(total)", "(used_now)" (placement's reserved plus
    allocated amounts, current from each claim), "(used_max)", then one
    per project with servers there; 404 unless a compute runs there."""
    context = req.context
    context.can(policies.HOSTS % 'show', target={})
    _compute_host(context, host_name)
    nodes = objects.ComputeNodeList.get_all_used_now(context, host_name)
    result = [
        _resource(host_name, '(total)', sum(n.vcpus for n in nodes),
                  sum(n.memory_mb for n in nodes),
                  sum(n.local_gb for n in nodes)),
        _resource(host_name, '(used_now)',
                  sum(n.vcpus_used for n in nodes),
                  sum(n.memory_mb_used for n in nodes),
                  sum(n.local_gb_used for n in nodes))]
    per_project = {}
    for instance in objects.InstanceList.get_by_host(context, host_name):
        used = per_project.setdefault(instance.project_id, [0, 0, 0])
        used[0] += instance.vcpus
        used[1] += instance.memory_mb
        used[2] += instance.root_gb + instance.ephemeral_gb
    totals = [sum(u[i] for u in per_project.values()) for i in range(3)]
    result.append(_resource(host_name, '(used_max)', *totals))
    result.extend(_resource(host_name, project, *used)
                  for project, used in sorted(per_project.items()))
    return wsgi.json_response({'host': result})


@_until_2_43
@validation.body(schema.UPDATE)
def update(req, host_name, body):
    """501 once the body is valid and the host a compute's (404 if not):
    the computes cannot change their host's status or maintenance mode."""
    context = req.context
    context.can(policies.HOSTS % 'update', target={})
    _compute_host(context, host_name)
    raise exception.HostActionNotSupported(host=host_name,
                                           action=', '.join(sorted(body)))


def _power_action(action):
    @_until_2_43
    def handler(req, host_name):
        context = req.context
        context.can(policies.HOSTS % 'power_action', target={})
        _compute_host(context, host_name)
        raise exception.HostActionNotSupported(host=host_name,
                                               action=action)
    handler.__doc__ = ('501 (404 for a host without a compute): the '
                       'computes cannot %s their host.' % action)
    return handler


startup = _power_action('startup')
shutdown = _power_action('shutdown')
reboot = _power_action('reboot')
