"""/servers/{id}/os-instance-actions: what was done to a server.

Nova's shapes. Every reader of the server sees its actions. An action's
events are shown to callers allowed Nova's ``events`` rule
(administrators) with their traceback; from 2.51 to every reader of the
server, without the traceback. From 2.62 events show ``hostId`` (the
server view's opaque host id) to everyone and ``host`` to callers
allowed the ``events`` rule. From 2.21 the actions of a deleted server
can be read too. From 2.58 actions show ``updated_at`` (their last
event's time) and the list pages (``limit``, ``marker`` a request id,
``changes-since``), with a ``links`` next link when a page is full.
"""

import copy

from nova_lite.api import common
from nova_lite.api.handlers import server_view
from nova_lite.api.schemas import instance_actions as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.compute import api as compute_api
from nova_lite import objects
from nova_lite.policies import instance_actions as policies

compute = compute_api.API()

_ACTION_FIELDS = ('action', 'instance_uuid', 'message', 'project_id',
                  'request_id', 'user_id')


PAGING_VERSION = '2.58'


def _action_view(req, action):
    view = {name: getattr(action, name) for name in _ACTION_FIELDS}
    view['start_time'] = common.isotime_usec(action.start_time)
    if req.api_version_request.matches(PAGING_VERSION):
        view['updated_at'] = common.isotime_usec(
            action.updated_at or action.start_time)
    return view


def _event_view(req, event, project_id, show_details):
    view = {'event': event.event, 'result': event.result,
            'start_time': common.isotime_usec(event.start_time),
            'finish_time': common.isotime_usec(event.finish_time)}
    if show_details:
        view['traceback'] = event.traceback
    if req.api_version_request.matches('2.62'):
        view['hostId'] = server_view.host_id(event.host, project_id)
        if show_details:
            view['host'] = event.host
    return view


def _instance(req, server_id, action):
    context = req.context
    if req.api_version_request.matches('2.21'):
        context = copy.copy(context)
        context.read_deleted = 'yes'
    instance = compute.get(context, server_id)
    req.context.can(policies.ACTIONS % action,
                    target={'project_id': instance.project_id})
    return instance


_V258_QUERY = validation._validator(schema.INDEX_QUERY_V258)


def _page(req, instance):
    validation.validate(_V258_QUERY, validation.query_dict(req))
    limit, marker = common.get_limit_and_marker(req)
    return objects.InstanceActionList.get_page(
        req.context, instance.uuid, limit, marker=marker,
        changes_since=common.changes_since_param(req))


def index(req, server_id):
    """200 {"instanceActions": [...]}, newest first; from 2.58 a page
    of them, with "links" (the next page) when it is full: 400 for a
    marker that is no request of the server's, a bad changes-since or
    any other query parameter."""
    instance = _instance(req, server_id, 'list')
    if not req.api_version_request.matches(PAGING_VERSION):
        actions = objects.InstanceActionList.get_by_instance_uuid(
            req.context, instance.uuid)
        return wsgi.json_response(
            {'instanceActions': [_action_view(req, a) for a in actions]})
    views = [_action_view(req, a) for a in _page(req, instance)]
    body = {'instanceActions': views}
    links = common.collection_links(
        req, views, 'servers/%s/os-instance-actions' % server_id,
        id_key='request_id')
    if links:
        body['links'] = links
    return wsgi.json_response(body)


def show(req, server_id, request_id):
    """200 {"instanceAction": {..., "events": [...]}} ("events" only for
    administrators before 2.51); 404 if the server has no action of that
    request."""
    context = req.context
    instance = _instance(req, server_id, 'show')
    action = objects.InstanceAction.get_by_request_id(
        context, instance.uuid, request_id)
    details = context.can(policies.ACTIONS % 'events',
                          target={'project_id': instance.project_id},
                          fatal=False)
    view = _action_view(req, action)
    if details or req.api_version_request.matches('2.51'):
        events = objects.InstanceActionEventList.get_by_action(context,
                                                               action.id)
        project_id = action.project_id or instance.project_id
        view['events'] = [_event_view(req, e, project_id, details)
                          for e in events]
    return wsgi.json_response({'instanceAction': view})
