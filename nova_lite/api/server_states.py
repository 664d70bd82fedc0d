"""Nova's map between a server's (vm_state, task_state) and its API status.

One table serves both directions: ``status_of`` shows a server, and
``states_for`` turns the ``status`` filters of ``GET /servers`` into the
vm_states and task_states to look for, as Nova's API does: a status
that some task shows (REBOOT, HARD_REBOOT, REBUILD, RESIZE, MIGRATING,
REVERT_RESIZE) matches servers in one of those tasks, and a status a
vm_state shows by itself (ACTIVE, SHUTOFF, VERIFY_RESIZE, ...) matches
every server in that vm_state whatever its task (so, as in Nova,
``status=ACTIVE`` also lists an active server being rebooted).
"""

from nova_lite.objects import fields

_V = fields.VMState
_T = fields.TaskState
# The key of a vm_state's own status in STATE_MAP.
DEFAULT = 'default'

_REBUILD = {_T.REBUILDING: 'REBUILD',
            _T.REBUILD_BLOCK_DEVICE_MAPPING: 'REBUILD',
            _T.REBUILD_SPAWNING: 'REBUILD'}
_RESIZE = {_T.RESIZE_PREP: 'RESIZE', _T.RESIZE_MIGRATING: 'RESIZE',
           _T.RESIZE_MIGRATED: 'RESIZE', _T.RESIZE_FINISH: 'RESIZE'}

# vm_state -> {task_state or DEFAULT: status}: Nova's table, less the
# task states nova_lite never sets (the reboot sub-steps, password
# updates).
STATE_MAP = {
    _V.ACTIVE: {DEFAULT: 'ACTIVE', _T.REBOOTING: 'REBOOT',
                _T.REBOOTING_HARD: 'HARD_REBOOT', _T.MIGRATING: 'MIGRATING',
                **_REBUILD, **_RESIZE},
    _V.BUILDING: {DEFAULT: 'BUILD'},
    _V.STOPPED: {DEFAULT: 'SHUTOFF', **_REBUILD, **_RESIZE},
    _V.RESIZED: {DEFAULT: 'VERIFY_RESIZE',
                 _T.RESIZE_REVERTING: 'REVERT_RESIZE'},
    _V.PAUSED: {DEFAULT: 'PAUSED', _T.MIGRATING: 'MIGRATING'},
    _V.SUSPENDED: {DEFAULT: 'SUSPENDED'},
    _V.RESCUED: {DEFAULT: 'RESCUE'},
    _V.ERROR: {DEFAULT: 'ERROR', **_REBUILD},
    _V.DELETED: {DEFAULT: 'DELETED'},
    _V.SHELVED: {DEFAULT: 'SHELVED'},
    _V.SHELVED_OFFLOADED: {DEFAULT: 'SHELVED_OFFLOADED'},
}
# Statuses Nova knows that no nova_lite server can have (its servers are
# never soft-deleted and have no password to update): a filter on them
# is valid and matches nothing.
NEVER_SHOWN = frozenset(('PASSWORD', 'SOFT_DELETED'))
KNOWN_STATUSES = frozenset(
    status for tasks in STATE_MAP.values() for status in tasks.values()
).union(NEVER_SHOWN)


def status_of(vm_state, task_state):
    """The API status of a server in ``vm_state`` doing ``task_state``
    (UNKNOWN for a vm_state Nova has no status for)."""
    tasks = STATE_MAP.get(vm_state)
    if tasks is None:
        return 'UNKNOWN'
    return tasks.get(task_state, tasks[DEFAULT])


def states_for(statuses):
    """(vm_states, task_states) to filter on for the API ``statuses``
    (any case). ``task_states`` is None when a vm_state's own status was
    asked for (no task filter, as in Nova); both are empty when no status
    names a state a server here can be in."""
    wanted = {status.upper() for status in statuses}
    vm_states, task_states, whole_state = set(), set(), False
    for vm_state, tasks in STATE_MAP.items():
        for task_state, status in tasks.items():
            if status in wanted:
                vm_states.add(vm_state)
                if task_state == DEFAULT:
                    whole_state = True
                else:
                    task_states.add(task_state)
    return (sorted(vm_states),
            None if whole_state else sorted(task_states))
