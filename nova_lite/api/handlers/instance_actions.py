"""/servers/{id}/os-instance-actions: what was done to a server.

Nova's shapes. Every reader of the server sees its actions and their
events (Nova shows events to non-admins since 2.51); an event's
traceback and host only administrators see (Nova's ``events`` rule).
From 2.21 the actions of a deleted server can be read too.
"""

import copy

from nova_lite.api import common
from nova_lite.api import wsgi
from nova_lite.compute import api as compute_api
from nova_lite import objects
from nova_lite.policies import instance_actions as policies

compute = compute_api.API()

_ACTION_FIELDS = ('action', 'instance_uuid', 'message', 'project_id',
                  'request_id', 'user_id')


def _action_view(action):
    view = {name: getattr(action, name) for name in _ACTION_FIELDS}
    view['start_time'] = common.isotime_usec(action.start_time)
    return view


def _event_view(event, show_details):
    view = {'event': event.event, 'result': event.result,
            'start_time': common.isotime_usec(event.start_time),
            'finish_time': common.isotime_usec(event.finish_time)}
    if show_details:
        view['traceback'] = event.traceback
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


def index(req, server_id):
    """200 {"instanceActions": [...]}, newest first."""
    instance = _instance(req, server_id, 'list')
    actions = objects.InstanceActionList.get_by_instance_uuid(
        req.context, instance.uuid)
    return wsgi.json_response(
        {'instanceActions': [_action_view(a) for a in actions]})


def show(req, server_id, request_id):
    """200 {"instanceAction": {..., "events": [...]}}; 404 if the server
    has no action of that request."""
    context = req.context
    instance = _instance(req, server_id, 'show')
    action = objects.InstanceAction.get_by_request_id(
        context, instance.uuid, request_id)
    events = objects.InstanceActionEventList.get_by_action(context,
                                                           action.id)
    details = context.can(policies.ACTIONS % 'events',
                          target={'project_id': instance.project_id},
                          fatal=False)
    view = _action_view(action)
    view['events'] = [_event_view(e, details) for e in events]
    return wsgi.json_response({'instanceAction': view})
