"""Server actions that change its power state, lock or state record.

``reboot``, ``os-stop``, ``os-start``, ``pause``, ``unpause``,
``suspend``, ``resume`` (cast to the compute, which clears the task
state when done), ``lock`` and ``unlock`` (recorded at once), the
administrator's ``os-resetState`` and, from 2.17,
``trigger_crash_dump`` (cast, no task state). Each answers 202 with no body.
Dispatched by ``server_actions``.
"""

from nova_lite.api.schemas import server_actions as schema
from nova_lite.api import wsgi
from nova_lite.compute import action_api
from nova_lite import exception
from nova_lite.objects import fields
from nova_lite.policies import server_actions as policies

api = action_api.ActionAPI()


def _can(req, rule, instance):
    req.context.can(rule, target={'project_id': instance.project_id,
                                  'user_id': instance.user_id})
    return req.context


def _accepted():
    return wsgi.json_response(status=202)


def reboot(req, instance, body):
    """202; 409 if the server cannot reboot now (SOFT needs ACTIVE)."""
    context = _can(req, policies.REBOOT, instance)
    api.reboot(context, instance, body['reboot']['type'].upper())
    return _accepted()


def _power(action, rule):
    def handler(req, instance, body):
        context = _can(req, rule, instance)
        api.power_action(context, instance, action)
        return _accepted()
    handler.__name__ = action
    handler.__doc__ = '202; 409 if the server cannot %s now.' % action
    return handler


def lock(req, instance, body):
    """202: the server is locked (again), with the reason if given."""
    context = _can(req, policies.LOCK, instance)
    reason = (body['lock'] or {}).get('locked_reason')
    instance.locked = True
    instance.locked_by = ('owner' if instance.project_id == context.project_id
                          else 'admin')
    instance.locked_reason = reason
    instance.save()
    action_api.record_action(context, instance, action_api.LOCK)
    return _accepted()


def unlock(req, instance, body):
    """202; 403 unless the caller locked it (as owner or administrator)
    or may override."""
    context = _can(req, policies.UNLOCK, instance)
    is_owner = instance.project_id == context.project_id
    expected = 'owner' if is_owner else 'admin'
    if instance.locked and instance.locked_by != expected:
        context.can(policies.UNLOCK_OVERRIDE,
                    target={'project_id': instance.project_id,
                            'user_id': instance.user_id})
    instance.locked = False
    instance.locked_by = None
    instance.locked_reason = None
    instance.save()
    action_api.record_action(context, instance, action_api.UNLOCK)
    return _accepted()


def trigger_crash_dump(req, instance, body):
    """202 (2.17; an unknown action before): the guest gets an NMI."""
    if not req.api_version_request.matches('2.17'):
        raise exception.InstanceUnknownAction(action='trigger_crash_dump')
    context = _can(req, policies.CRASH_DUMP, instance)
    api.trigger_crash_dump(context, instance)
    return _accepted()


def reset_state(req, instance, body):
    """202: vm_state active or error, no task (administrators)."""
    context = _can(req, policies.RESET_STATE, instance)
    state = body['os-resetState']['state']
    if instance.task_state == fields.TaskState.DELETING:
        raise exception.InstanceActionInvalidState(
            action='os-resetState', instance_uuid=instance.uuid,
            attr='task_state', state=instance.task_state)
    instance.vm_state = (fields.VMState.ACTIVE if state == 'active'
                         else fields.VMState.ERROR)
    instance.task_state = None
    instance.save()
    action_api.record_action(context, instance, action_api.RESET_STATE)
    return _accepted()


ACTIONS = {
    'reboot': (schema.REBOOT, reboot),
    'os-stop': (schema.STOP, _power(action_api.STOP, policies.STOP)),
    'os-start': (schema.START, _power(action_api.START, policies.START)),
    'pause': (schema.PAUSE, _power(action_api.PAUSE, policies.PAUSE)),
    'unpause': (schema.UNPAUSE, _power(action_api.UNPAUSE,
                                       policies.UNPAUSE)),
    'suspend': (schema.SUSPEND, _power(action_api.SUSPEND,
                                       policies.SUSPEND)),
    'resume': (schema.RESUME, _power(action_api.RESUME, policies.RESUME)),
    'lock': (schema.LOCK, lock),
    'unlock': (schema.UNLOCK, unlock),
    'os-resetState': (schema.RESET_STATE, reset_state),
    'trigger_crash_dump': (schema.CRASH_DUMP, trigger_crash_dump),
}
