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
From 2.84 events show ``details`` (the message of a failed event's
fault) to callers allowed the ``events:details`` rule (the server's
readers).
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
DETAILS_VERSION = '2.84'


def _action_view(req, action):
    view = {name: getattr(action, name) for name in _ACTION_FIELDS}
    view['start_time'] = common.isotime_usec(action.start_time)
    if req.api_version_request.matches(PAGING_VERSION):
        view['updated_at'] = common.isotime_usec(
            action.updated_at or action.start_time)
    return view


def _event_view(req, event, project_id, show_details, show_reason):
    """An event; ``show_details``: the caller is allowed the traceback
    and host, ``show_reason``: its details (2.84)."""
    view = {'event': event.event, 'result': event.result,
            'start_time': common.isotime_usec(event.start_time),
            'finish_time': common.isotime_usec(event.finish_time)}
    if show_details:
        view['traceback'] = event.traceback
    if req.api_version_request.matches('2.62'):
        view['hostId'] = server_view.host_id(event.host, project_id)
        if show_details:
            view['host'] = event.host
    if show_reason:
        view['details'] = event.details
    return view


def _may_see_reasons(req, instance):
    return (req.api_version_request.matches(DETAILS_VERSION) and
            req.context.can(policies.ACTIONS % 'events:details',
                            target={'project_id': instance.project_id},
                            fatal=False))


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
_V266_QUERY = validation._validator(schema.INDEX_QUERY_V266)


def _page(req, instance):
    query = (_V266_QUERY if req.api_version_request.matches('2.66')
             else _V258_QUERY)
    validation.validate(query, validation.query_dict(req))
    limit, marker = common.get_limit_and_marker(req)
    since, before = common.changes_window(req)
    return objects.InstanceActionList.get_page(
        req.context, instance.uuid, limit, marker=marker,
        changes_since=since, changes_before=before)


def index(req, server_id):
    """200 {"instanceActions": [...]}, newest first; from 2.58 a page
    of them, with "links" (the next page) when it is full: 400 for a
    marker that is no request of the server's, a bad changes-since (or
    from 2.66 changes-before, or one earlier than changes-since) or
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


# For the OpenAPI document: what _page checks (no parameters before).
index.query_schema_versions = (('2.58', schema.INDEX_QUERY_V258),
                               ('2.66', schema.INDEX_QUERY_V266))


def show(req, server_id, request_id):
    """200 {"instanceAction": {..., "events": [...]}} ("events" only for
    administrators before 2.51, with "details" from 2.84); 404 if the
    server has no action of that request."""
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
        reasons = _may_see_reasons(req, instance)
        view['events'] = [_event_view(req, e, project_id, details, reasons)
                          for e in events]
    return wsgi.json_response({'instanceAction': view})
