"""The attribute filters of GET /servers and /servers/detail.

Administrators (``os_compute_api:servers:allow_all_filters``) filter on
these at every version; from 2.83 everyone does, as in Nova (before,
others' are ignored). Each names a server attribute and matches it
exactly (the last value counts, except ``vm_state`` and ``task_state``,
which take a list):

``availability_zone``, ``key_name``, ``user_id``, ``power_state`` (an
integer), ``created_at``, ``launched_at`` and ``terminated_at`` (ISO 8601
instants), ``vm_state`` and ``task_state``. nova_lite has no config
drive and reports a ``progress`` of 0, so ``config_drive`` matches no
server unless empty, and ``progress`` none unless 0.
"""

from nova_lite.api import common
from nova_lite import exception
from nova_lite.objects import fields
from nova_lite.policies import servers as policies

# Nova's microversion that opened these filters to everyone.
OPEN_VERSION = '2.83'
_EXACT = ('availability_zone', 'key_name', 'user_id')
_TIMES = ('created_at', 'launched_at', 'terminated_at')
_STATES = ('vm_state', 'task_state')
# Attributes every nova_lite server has the same value of: a filter on
# another value matches nothing.
_CONSTANT = {'config_drive': '', 'progress': '0'}
NAMES = _EXACT + _TIMES + _STATES + tuple(_CONSTANT) + ('power_state',)


class MatchesNothing(Exception):
    """The filters match no server (no query needed)."""


def allowed(req, context):
    """Whether the caller's attribute filters count."""
    return (req.api_version_request.matches(OPEN_VERSION) or
            context.can(policies.SERVERS % 'allow_all_filters',
                        fatal=False))


def _int(name, value):
    try:
        return int(value)
    except ValueError:
        raise exception.ValidationError(
            detail="Invalid input for query parameters %s. Value: %s. "
                   "'%s' is not an integer" % (name, value, value))


def _states(req, context):
    filters = {}
    for name in _STATES:
        values = [v for v in req.GET.getall(name) if v]
        if values:
            filters[name] = values
    if (fields.VMState.DELETED in filters.get('vm_state', ())
            and not context.is_admin):
        raise exception.Forbidden(
            reason='only administrators may list deleted instances')
    return filters


def build(req, context):
    """InstanceList filters of the request's attribute filters ({} when
    the caller may not use them); MatchesNothing when one names a value
    no server here has, 400 for a malformed value."""
    if not allowed(req, context):
        return {}
    filters = _states(req, context)
    for name in _EXACT:
        value = common.last_param(req, name)
        if value:
            filters[name] = value
    for name in _TIMES:
        if common.last_param(req, name):
            filters[name] = common.changes_since_param(req, name)
    power_state = common.last_param(req, 'power_state')
    if power_state:
        filters['power_state'] = _int('power_state', power_state)
    for name, value in _CONSTANT.items():
        given = common.last_param(req, name)
        if name == 'progress' and given:
            given = str(_int(name, given))
        if given and given != value:
            raise MatchesNothing()
    return filters
