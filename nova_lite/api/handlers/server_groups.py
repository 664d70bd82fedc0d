"""/os-server-groups: server groups.

A group is {"id", "name", "policies": [one policy], "members": [server
ids], "metadata": {}}; from 2.64 {"id", "name", "policy", "rules",
"members"}, created with ``policy`` and ``rules`` (max_server_per_host,
anti-affinity only). Servers join one with the scheduler hint ``group``
at creation.
"""

from nova_lite.api import common
from nova_lite.api.schemas import server_groups as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite import exception
from nova_lite import objects
from nova_lite.policies import server_groups as policies


POLICY_VERSION = '2.64'


def group_view(req, group):
    """Nova's group: from 2.13 with its project_id and user_id; from
    2.64 with ``policy`` and ``rules`` in place of ``policies`` and
    ``metadata``."""
    view = {'id': group.uuid, 'name': group.name,
            'members': list(group.members)}
    if req.api_version_request.matches(POLICY_VERSION):
        view.update(policy=group.policy, rules=dict(group.rules or {}))
    else:
        view.update(policies=[group.policy], metadata={})
    if req.api_version_request.matches('2.13'):
        view.update(project_id=group.project_id, user_id=group.user_id)
    return view


def _check_policy(req, policy):
    """The soft policies are 2.15's: 400 before."""
    if (policy.startswith('soft-')
            and not req.api_version_request.matches('2.15')):
        raise exception.ValidationError(
            detail='policy %s needs microversion 2.15' % policy)


def _rules(policy, values):
    """The group's rules; only anti-affinity takes max_server_per_host
    (as Nova's 2.64 validates it)."""
    rules = values.get('rules') or {}
    if not rules:
        return {}
    if policy != 'anti-affinity':
        raise exception.ValidationError(
            detail='Only anti-affinity policy supports rules.')
    limit = int(rules['max_server_per_host'])
    if limit < 1:
        raise exception.ValidationError(
            detail='max_server_per_host must be at least 1')
    return {'max_server_per_host': limit}


def _get(context, group_id):
    """The group, if the caller's project owns it or they are an
    administrator; InstanceGroupNotFound (404) otherwise."""
    try:
        group = objects.InstanceGroup.get_by_uuid(context, group_id)
    except exception.InstanceGroupNotFound:
        raise exception.InstanceGroupNotFound(group_uuid=group_id)
    if not context.is_admin and group.project_id != context.project_id:
        raise exception.InstanceGroupNotFound(group_uuid=group_id)
    return group


@validation.query(schema.INDEX_QUERY)
def index(req):
    """200 {"server_groups": [...]}: the caller's project's, or every
    project's with ?all_projects=true (administrators), paged with
    ?limit and ?offset."""
    context = req.context
    context.can(policies.SERVER_GROUPS % 'index',
                target={'project_id': context.project_id})
    if common.bool_param(req, 'all_projects', False) and context.can(
            policies.SERVER_GROUPS % 'index:all_projects', fatal=False):
        groups = objects.InstanceGroupList.get_all(context)
    else:
        groups = objects.InstanceGroupList.get_by_project_id(
            context, context.project_id)
    offset = int(common.last_param(req, 'offset', 0))
    limit, _marker = common.get_limit_and_marker(req)
    page = list(groups)[offset:offset + limit]
    return wsgi.json_response(
        {'server_groups': [group_view(req, g) for g in page]})


_CREATE_V21 = validation._validator(schema.CREATE)
_CREATE_V264 = validation._validator(schema.CREATE_V264)


@validation.body(schema.CREATE_ANY)
def create(req, body):
    """200 {"server_group": ...} in the caller's project; 400 for a body
    of another version (``policies`` before 2.64, ``policy`` and
    ``rules`` from 2.64) or rules with a policy other than
    anti-affinity."""
    at_264 = req.api_version_request.matches(POLICY_VERSION)
    validation.validate(_CREATE_V264 if at_264 else _CREATE_V21, body)
    context = req.context
    context.can(policies.SERVER_GROUPS % 'create',
                target={'project_id': context.project_id,
                        'user_id': context.user_id})
    values = body['server_group']
    policy = values['policy'] if at_264 else values['policies'][0]
    _check_policy(req, policy)
    group = objects.InstanceGroup(
        context=context, name=values['name'],
        policy=policy, rules=_rules(policy, values),
        project_id=context.project_id, user_id=context.user_id)
    group.create()
    return wsgi.json_response({'server_group': group_view(req, group)})


# For the OpenAPI document: what create checks at each version.
create.body_schema_versions = (('2.1', schema.CREATE),
                               (POLICY_VERSION, schema.CREATE_V264))


def show(req, group_id):
    """200 {"server_group": ...}; 404 if unknown or not the caller's."""
    context = req.context
    group = _get(context, group_id)
    context.can(policies.SERVER_GROUPS % 'show',
                target={'project_id': group.project_id})
    return wsgi.json_response({'server_group': group_view(req, group)})


def delete(req, group_id):
    """204; the members keep running, in no group."""
    context = req.context
    group = _get(context, group_id)
    context.can(policies.SERVER_GROUPS % 'delete',
                target={'project_id': group.project_id,
                        'user_id': group.user_id})
    group.destroy()
    return wsgi.json_response(status=204)
