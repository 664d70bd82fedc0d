"""/os-simple-tenant-usage: what projects used over a period.

A server counts from its ``launched_at`` to its ``terminated_at`` (or the
end of the period), clipped to the period; its hours times its vCPUs,
memory and disk make the totals. ``?start=`` and ``?end=`` bound the
period (ISO 8601, UTC; both default to now). At most ``[api] max_limit``
servers are counted; from 2.40 ``?limit=`` and ``?marker=`` (a server's
uuid) page through them, with a next link when a page is full (a
project's totals then span pages, as in Nova).
"""

import datetime

from oslo_utils import timeutils

from nova_lite.api import common
from nova_lite.api.schemas import simple_tenant_usage as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.conf import CONF
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


_PAGING_VALIDATOR = validation._validator(schema.PAGING_QUERY)


def _page(req):
    """(limit, marker): the request's from 2.40, else the cap and none
    (Nova silently caps older requests too)."""
    if not req.api_version_request.matches('2.40'):
        return CONF.api.max_limit, None
    validation.validate(_PAGING_VALIDATOR, validation.query_dict(req))
    return common.get_limit_and_marker(req)


def _instances(req, start, end, project_id=None):
    limit, marker = _page(req)
    return instance_usage.get_active_by_window(
        req.context, start, end, project_id, limit=limit, marker=marker)


def _links(req, instances, collection):
    """The next-page link of 2.40 when the page of servers is full."""
    if not req.api_version_request.matches('2.40'):
        return []
    return common.collection_links(
        req, [{'uuid': i.uuid} for i in instances], collection,
        id_key='uuid')


def _usages(instances, start, end, now):
    """{project: tenant usage with "server_usages"}, in launch order."""
    usages = {}
    for instance in instances:
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
    period (administrators); "server_usages" only with ?detailed=1;
    "tenant_usages_links" from 2.40 when the page is full."""
    context = req.context
    context.can(policies.SIMPLE_TENANT_USAGE % 'list', target={})
    detailed = common.bool_param(req, 'detailed', False)
    start, end, now = _period(req)
    instances = _instances(req, start, end)
    usages = list(_usages(instances, start, end, now).values())
    if not detailed:
        for usage in usages:
            del usage['server_usages']
    body = {'tenant_usages': usages}
    links = _links(req, instances, 'os-simple-tenant-usage')
    if links:
        body['tenant_usages_links'] = links
    return wsgi.json_response(body)


@validation.query(schema.SHOW_QUERY)
def show(req, tenant_id):
    """200 {"tenant_usage": {... "server_usages"}}, or {} when the
    project ran no server in the period; "tenant_usage_links" from 2.40
    when the page is full."""
    context = req.context
    context.can(policies.SIMPLE_TENANT_USAGE % 'show',
                target={'project_id': tenant_id})
    start, end, now = _period(req)
    instances = _instances(req, start, end, tenant_id)
    usage = _usages(instances, start, end, now).get(tenant_id, {})
    body = {'tenant_usage': usage}
    links = _links(req, instances, 'os-simple-tenant-usage/' + tenant_id)
    if links:
        body['tenant_usage_links'] = links
    return wsgi.json_response(body)
