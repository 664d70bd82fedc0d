"""/os-simple-tenant-usage: what projects used over a period.

A server counts from its ``launched_at`` to its ``terminated_at`` (or the
end of the period), clipped to the period; its hours times its vCPUs,
memory and disk make the totals. ``?start=`` and ``?end=`` bound the
period (ISO 8601, UTC; both default to now).
"""

import datetime

from oslo_utils import timeutils

from nova_lite.api import common
from nova_lite.api.schemas import simple_tenant_usage as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite import exception
from nova_lite.objects import instance_usage
from nova_lite.policies import simple_tenant_usage as policies

_FORMATS = ('%Y-%m-%dT%H:%M:%S', '%Y-%m-%dT%H:%M:%S.%f',
            '%Y-%m-%d %H:%M:%S.%f', '%Y-%m-%d %H:%M:%S')


def _parse_time(req, name, now):
    value = common.last_param(req, name)
    if value is None:
        return now
    for fmt in _FORMATS:
        try:
            return datetime.datetime.strptime(value, fmt)
        except ValueError:
            continue
    raise exception.ValidationError(
        detail='Invalid %s time %r: expected YYYY-MM-DDTHH:MM:SS[.ffffff].'
               % (name, value))


def _period(req):
    now = timeutils.utcnow().replace(tzinfo=None)
    start, end = _parse_time(req, 'start', now), _parse_time(req, 'end', now)
    if start > end:
        raise exception.ValidationError(
            detail='Invalid start time: it is after the end time.')
    return start, end, now


def _server_usage(instance, start, end, now):
    launched, terminated = instance.launched_at, instance.terminated_at
    launched = launched.replace(tzinfo=None)
    terminated = terminated and terminated.replace(tzinfo=None)
    stop = min(terminated or end, end)
    hours = max((stop - max(launched, start)).total_seconds(), 0) / 3600.0
    flavor = instance.flavor
    return {
        'instance_id': instance.uuid, 'name': instance.display_name,
        'tenant_id': instance.project_id, 'flavor': flavor.name,
        'hours': hours, 'vcpus': flavor.vcpus, 'memory_mb': flavor.memory_mb,
        'local_gb': flavor.root_gb + flavor.ephemeral_gb,
        'started_at': common.isotime_usec(launched),
        'ended_at': common.isotime_usec(terminated),
        'state': 'terminated' if terminated else instance.vm_state,
        'uptime': int(((terminated or now) - launched).total_seconds()),
    }


def _usages(context, start, end, now, project_id=None):
    """{project: tenant usage with "server_usages"}, in launch order."""
    usages = {}
    for instance in instance_usage.get_active_by_window(
            context, start, end, project_id):
        server = _server_usage(instance, start, end, now)
        usage = usages.setdefault(instance.project_id, {
            'tenant_id': instance.project_id, 'server_usages': [],
            'total_hours': 0.0, 'total_vcpus_usage': 0.0,
            'total_memory_mb_usage': 0.0, 'total_local_gb_usage': 0.0,
            'start': common.isotime_usec(start),
            'stop': common.isotime_usec(end)})
        usage['server_usages'].append(server)
        usage['total_hours'] += server['hours']
        for total, key in (('total_vcpus_usage', 'vcpus'),
                           ('total_memory_mb_usage', 'memory_mb'),
                           ('total_local_gb_usage', 'local_gb')):
            usage[total] += server['hours'] * server[key]
    return usages


@validation.query(schema.INDEX_QUERY)
def index(req):
    """200 {"tenant_usages": [...]}: every project with servers in the
    period (administrators); "server_usages" only with ?detailed=1."""
    context = req.context
    context.can(policies.SIMPLE_TENANT_USAGE % 'list', target={})
    detailed = common.bool_param(req, 'detailed', False)
    start, end, now = _period(req)
    usages = list(_usages(context, start, end, now).values())
    if not detailed:
        for usage in usages:
            del usage['server_usages']
    return wsgi.json_response({'tenant_usages': usages})


@validation.query(schema.SHOW_QUERY)
def show(req, tenant_id):
    """200 {"tenant_usage": {... "server_usages"}}, or {} when the
    project ran no server in the period."""
    context = req.context
    context.can(policies.SIMPLE_TENANT_USAGE % 'show',
                target={'project_id': tenant_id})
    start, end, now = _period(req)
    usage = _usages(context, start, end, now, tenant_id).get(tenant_id, {})
    return wsgi.json_response({'tenant_usage': usage})
