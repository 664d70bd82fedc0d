"""Policies of POST /servers/{id}/action (Nova's rule names)."""

from oslo_policy import policy

from nova_lite.policies import base

REBOOT = 'os_compute_api:servers:reboot'
STOP = 'os_compute_api:servers:stop'
START = 'os_compute_api:servers:start'
PAUSE = 'os_compute_api:os-pause-server:pause'
UNPAUSE = 'os_compute_api:os-pause-server:unpause'
SUSPEND = 'os_compute_api:os-suspend-server:suspend'
RESUME = 'os_compute_api:os-suspend-server:resume'
LOCK = 'os_compute_api:os-lock-server:lock'
UNLOCK = 'os_compute_api:os-lock-server:unlock'
UNLOCK_OVERRIDE = 'os_compute_api:os-lock-server:unlock:unlock_override'
RESET_STATE = 'os_compute_api:os-admin-actions:reset_state'
CRASH_DUMP = 'os_compute_api:servers:trigger_crash_dump'

_PATH = '/servers/{server_id}/action (%s)'


def _member(name, action, description):
    return policy.DocumentedRuleDefault(
        name=name, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description=description,
        operations=[{'method': 'POST', 'path': _PATH % action}],
        scope_types=['project'])


rules = [
    _member(REBOOT, 'reboot', 'Reboot a server (SOFT or HARD).'),
    _member(STOP, 'os-stop', 'Stop (power off) a server.'),
    _member(START, 'os-start', 'Start (power on) a stopped server.'),
    _member(PAUSE, 'pause', 'Pause a server.'),
    _member(UNPAUSE, 'unpause', 'Unpause a paused server.'),
    _member(SUSPEND, 'suspend', 'Suspend a server.'),
    _member(RESUME, 'resume', 'Resume a suspended server.'),
    _member(LOCK, 'lock', 'Lock a server: only administrators may act on '
                          'it until it is unlocked.'),
    _member(UNLOCK, 'unlock', 'Unlock a server the caller locked.'),
    _member(CRASH_DUMP, 'trigger_crash_dump',
            'Trigger a crash dump in a server (an NMI; microversion 2.17).'),
    policy.DocumentedRuleDefault(
        name=UNLOCK_OVERRIDE, check_str=base.RULE_ADMIN_API,
        description='Unlock a server someone else locked (an owner\'s '
                    'lock, for an administrator, or the reverse).',
        operations=[{'method': 'POST', 'path': _PATH % 'unlock'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=RESET_STATE, check_str=base.RULE_ADMIN_API,
        description='Reset a server\'s state to active or error and clear '
                    'its task.',
        operations=[{'method': 'POST', 'path': _PATH % 'os-resetState'}],
        scope_types=['project']),
]


def list_rules():
    return rules
