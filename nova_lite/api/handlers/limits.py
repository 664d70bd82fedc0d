"""/limits: the caller's rate limits and absolute (quota) limits.

The absolute part is what binds the caller: per resource, the project's
limit and usage, or their own where a user quota leaves them less room.
From 2.36 the network ones (security groups, floating IPs) are gone,
from 2.39 ``maxImageMeta`` (Nova's image-metadata proxy went), from 2.57
the personality ones.
"""

import datetime

from nova_lite.api import common
from nova_lite.api.schemas import quota_sets as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.policies import limits as policies
from nova_lite.quota import limits as quota_limits
from nova_lite.quota import usages

# Nova's absolute limit names -> resource.
MAX_NAMES = {
    'maxTotalInstances': 'instances',
    'maxTotalCores': 'cores',
    'maxTotalRAMSize': 'ram',
    'maxServerMeta': 'metadata_items',
    'maxImageMeta': 'metadata_items',
    'maxServerGroups': 'server_groups',
    'maxServerGroupMembers': 'server_group_members',
}
USED_NAMES = {
    'totalInstancesUsed': 'instances',
    'totalCoresUsed': 'cores',
    'totalRAMUsed': 'ram',
    'totalServerGroupsUsed': 'server_groups',
}


# Nova's 2.1 absolute limits of things nova_lite has none of: unlimited,
# nothing used.
UNENFORCED_MAX = ('maxPersonality', 'maxPersonalitySize',
                  'maxSecurityGroupRules', 'maxSecurityGroups',
                  'maxTotalFloatingIps', 'maxTotalKeypairs')
UNENFORCED_USED = ('totalFloatingIpsUsed', 'totalSecurityGroupsUsed')
# Gone at 2.36 with Nova's network proxy APIs.
NETWORK_NAMES = ('maxSecurityGroupRules', 'maxSecurityGroups',
                 'maxTotalFloatingIps', 'totalFloatingIpsUsed',
                 'totalSecurityGroupsUsed')
# (version, absolute limits gone from it).
REMOVED_NAMES = (
    ('2.36', NETWORK_NAMES),
    ('2.39', ('maxImageMeta',)),
    ('2.57', ('maxPersonality', 'maxPersonalitySize')),
)


def _headroom(limit, usage):
    if limit == -1:
        return float('inf')
    return limit - usage['in_use'] - usage['reserved']


def binding(project_limits, project_usage, user_limits, user_usage):
    """{resource: (limit, usage)}: the project's, or the user's where it
    leaves less room (``user_usage`` None: no user quota)."""
    result = {}
    for resource, limit in project_limits.items():
        usage = project_usage.get(resource, {'in_use': 0, 'reserved': 0})
        chosen = (limit, usage)
        if user_usage is not None and resource in user_usage:
            mine = (user_limits[resource], user_usage[resource])
            if _headroom(*mine) < _headroom(*chosen):
                chosen = mine
        result[resource] = chosen
    return result


def absolute_view(limits, with_reserved):
    view = {name: limits[r][0] for name, r in MAX_NAMES.items()}
    for name, resource in USED_NAMES.items():
        usage = limits[resource][1]
        view[name] = usage['in_use'] + (
            usage['reserved'] if with_reserved else 0)
    view.update(dict.fromkeys(UNENFORCED_MAX, -1))
    view.update(dict.fromkeys(UNENFORCED_USED, 0))
    return view


def rate_view(rate_limits):
    """Nova's rate limit groups: per (uri, regex), its limits.

    ``rate_limits`` is what the ratelimit middleware left in the request
    (its Limiter.get_limits: each limit already displayed, as a dict).
    """
    groups = {}
    for shown in rate_limits or ():
        group = groups.setdefault((shown['URI'], shown['regex']), {
            'uri': shown['URI'], 'regex': shown['regex'], 'limit': []})
        group['limit'].append({
            'verb': shown['verb'], 'value': shown['value'],
            'remaining': shown['remaining'], 'unit': shown['unit'],
            'next-available': common.isotime(
                datetime.datetime.fromtimestamp(shown['resetTime'],
                                                datetime.timezone.utc)),
        })
    return list(groups.values())


def _caller_limits(context, project_id, user_id):
    project_limits, user_limits = quota_limits.get_limits(
        context, project_id, user_id, context.quota_class)
    user_usage = None
    if user_id and quota_limits.has_user_limits(context, project_id,
                                                user_id):
        user_usage = usages.get_summary(context, project_id, user_id)
    return binding(project_limits, usages.get_summary(context, project_id),
                   user_limits, user_usage)


@validation.query(schema.LIMITS_QUERY)
def index(req):
    """200 {"limits": {"rate": [...], "absolute": {...}}}; ?tenant_id=
    (administrators) shows another project's absolute limits, and
    ?reserved=1 counts reservations as used."""
    context = req.context
    context.can(policies.LIMITS)
    project_id = context.project_id
    user_id = context.user_id
    tenant_id = common.last_param(req, 'tenant_id')
    if tenant_id and tenant_id != project_id:
        context.can(policies.OTHER_PROJECT, target={})
        project_id, user_id = tenant_id, None
    with_reserved = common.bool_param(req, 'reserved', False)
    absolute = absolute_view(_caller_limits(context, project_id, user_id),
                             with_reserved)
    for version, names in REMOVED_NAMES:
        if req.api_version_request.matches(version):
            for name in names:
                del absolute[name]
    return wsgi.json_response({'limits': {
        'rate': rate_view(req.environ.get(wsgi.LIMITS_KEY)),
        'absolute': absolute}})
