"""/os-server-groups: server groups (microversion 2.1 shapes).

A group is {"id", "name", "policies": [one policy], "members": [server
ids], "metadata": {}}. Servers join one with the scheduler hint
``group`` at creation.
"""

from nova_lite.api import common
from nova_lite.api.schemas import server_groups as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite import exception
from nova_lite import objects
from nova_lite.policies import server_groups as policies


def group_view(req, group):
    """Nova's group: from 2.13 with its project_id and user_id. ``rules``
    (and ``policy``) are 2.64's: a group keeps its rules and enforces
    them, but earlier versions do not show them."""
    view = {'id': group.uuid, 'name': group.name,
            'policies': [group.policy], 'members': list(group.members),
            'metadata': {}}
    if req.api_version_request.matches('2.13'):
        view.update(project_id=group.project_id, user_id=group.user_id)
    return view


def _check_policy(req, policy):
    """The soft policies are 2.15's: 400 before."""
    if (policy.startswith('soft-')
            and not req.api_version_request.matches('2.15')):
        raise exception.ValidationError(
            detail='policy %s needs microversion 2.15' % policy)


def _rules(values):
    """The group's rules; only anti-affinity takes max_server_per_host
    (as Nova's 2.64 validates it)."""
    rules = values.get('rules') or {}
    if not rules:
        return {}
    if values['policies'][0] != 'anti-affinity':
        raise exception.ValidationError(
            detail='rules are only allowed with the anti-affinity policy')
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


@validation.body(schema.CREATE)
def create(req, body):
    """200 {"server_group": ...} in the caller's project."""
    context = req.context
    context.can(policies.SERVER_GROUPS % 'create',
                target={'project_id': context.project_id,
                        'user_id': context.user_id})
    values = body['server_group']
    _check_policy(req, values['policies'][0])
    group = objects.InstanceGroup(
        context=context, name=values['name'],
        policy=values['policies'][0], rules=_rules(values),
        project_id=context.project_id, user_id=context.user_id)
    group.create()
    return wsgi.json_response({'server_group': group_view(req, group)})


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
