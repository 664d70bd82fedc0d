"""What a server's newest action says about who took its work up.

The lost-work checks (``lost_actions``, ``lost_outcomes``) and the
settling of a restarted compute's moves (``move_timeouts``) read the
events the conductors and computes record as they start a step.

    action_events.newest_action(context, instance)
    action_events.events(context, action)
    action_events.taken_up(context, action, prefix='')
"""

from nova_lite import objects


def newest_action(context, instance):
    """The instance's newest action, None if it has none."""
    actions = objects.InstanceActionList.get_by_instance_uuid(
        context, instance.uuid, limit=1)
    return actions[0] if actions else None


def events(context, action):
    """The events recorded on ``action``, oldest first."""
    return objects.InstanceActionEventList.get_by_action(context, action.id)


def taken_up(context, action, prefix=''):
    """Whether an event whose name starts with ``prefix`` (any, by
    default) is recorded on ``action``."""
    return any(event.event.startswith(prefix)
               for event in events(context, action))
