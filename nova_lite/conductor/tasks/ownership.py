"""Which conductor owns a build while it is with the conductors.

A conductor acknowledges a ``build_instances`` cast when it arrives, so
one killed (or stopped while draining) after it took a cast loses the
build: the server stays in ``scheduling`` with no host until ``[conductor]
build_timeout``. To heal that in seconds, every build with the conductors
names its owner in ``instances.build_owner`` (migration 0006):

* ``<pid>/<start>@<host>``: the conductor process that provisioned the
  build (written in the provision transaction), then the one that took
  its cast (compare-and-swap from the provisioner's value);
* ``+<pid>/<start>@<host>``: a conductor that re-drives a lost build;
* ``-<host>``: cast to compute ``host``, which has not acknowledged it
  yet (``conductor/tasks/lost_casts.py`` re-casts or fails a build whose
  cast seems lost); ``-<host>#<n>`` once it was cast again ``n`` times;
* ``-`` (``HANDED_OFF``): the compute acknowledged the cast (or an older
  conductor handed it off); its own recovery, the down-compute check and
  the build timeout look after it from there;
* NULL: untracked (provisioned while an older conductor ran, see
  ``enabled``): the build timeout alone ends it if it is lost.

An owner is gone when it is a process of this host that no longer runs
(its pid is dead, a zombie, or a newer process with the same pid), or a
conductor of another host whose service is down (no heartbeat within
``service_down_time``). A restarted conductor re-drives its host's
builds at once; another host's, once that conductor is seen down.

Every change of owner is a compare-and-swap on the owner it replaces, so
of two conductors racing for a lost build exactly one re-drives it, and
a cast that arrives after a re-drive (it was only queued behind a dead
consumer) finds the build re-driven or handed off and does nothing.

While any conductor older than this code runs (``nova-lite-conductor``
service version below ``OWNER_SERVICE_VERSION``) no owner is written and
nothing is re-driven: an older conductor casts to computes without
handing off, so its builds must never look lost.
"""

import datetime
import os
import threading
import time

from oslo_log import log as logging
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import objects
from nova_lite.objects import fields

LOG = logging.getLogger(__name__)

CONDUCTOR_BINARY = 'nova-lite-conductor'
# The first conductor service version that records build owners.
OWNER_SERVICE_VERSION = 2
HANDED_OFF = '-'
REDRIVEN = '+'
# Between the host and the number of re-casts in an unacknowledged owner.
RECASTS = '#'
# Seconds the answer of ``enabled`` is kept.
ENABLED_CACHE_SECONDS = 30

_enabled_cache = {'until': 0.0, 'value': False}
_active = set()
_active_lock = threading.Lock()


# -- who we are, and who is alive ----------------------------------------

def _process_start(pid):
    """The start time of process ``pid`` in clock ticks since boot; None
    if it does not run (or is a zombie); 0 where /proc is not there."""
    try:
        with open('/proc/%d/stat' % pid) as stat:
            # The command name is in parentheses and may hold spaces.
            rest = stat.read().rsplit(')', 1)[1].split()
    except FileNotFoundError:
        if os.path.isdir('/proc'):
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return 0
    except OSError:
        return None
    if rest[0] in ('Z', 'X'):
        return None
    return int(rest[19])


_tokens = {}   # (pid, host) -> owner value: a forked worker has its own


def token():
    """This process's owner value."""
    key = (os.getpid(), CONF.host)
    if key not in _tokens:
        _tokens[key] = '%d/%s@%s' % (key[0], _process_start(key[0]) or 0,
                                     key[1])
    return _tokens[key]


def _parse(owner):
    """(pid, start, host) of an owner value; None if malformed."""
    proc, sep, host = owner.lstrip(REDRIVEN).rpartition('@')
    pid, slash, start = proc.partition('/')
    if not (sep and slash and pid.isdigit() and start.isdigit()):
        return None
    return int(pid), int(start), host


def _mine(owner):
    return owner.lstrip(REDRIVEN) == token()


def is_gone(context, owner, services=None):
    """True if the conductor process ``owner`` names is surely gone."""
    parsed = _parse(owner)
    if parsed is None:
        return False
    pid, start, host = parsed
    if host == CONF.host:
        now = _process_start(pid)
        return now is None or (bool(start) and bool(now) and now != start)
    if services is None:
        services = _conductors(context)
    service = services.get(host)
    return service is None or not service.is_up


def _conductors(context):
    return {svc.host: svc for svc in objects.ServiceList.get_all(context)
            if svc.binary == CONDUCTOR_BINARY}


def enabled(context):
    """True when every running conductor records build owners."""
    now = time.monotonic()
    if now < _enabled_cache['until']:
        return _enabled_cache['value']
    try:
        minimum = objects.Service.get_minimum_version(context,
                                                      CONDUCTOR_BINARY)
    except Exception:
        LOG.exception('Cannot read the minimum conductor version; not '
                      'tracking build owners for now')
        return False
    value = minimum >= OWNER_SERVICE_VERSION
    _enabled_cache.update(until=now + ENABLED_CACHE_SECONDS, value=value)
    return value


# -- what this process is working on -------------------------------------

class working:
    """``with working(uuids):`` marks builds this process is handling, so
    its own periodic check never takes them for lost casts."""

    def __init__(self, uuids):
        self.uuids = set(uuids)

    def __enter__(self):
        with _active_lock:
            _active.update(self.uuids)

    def __exit__(self, *exc):
        with _active_lock:
            _active.difference_update(self.uuids)


def is_active(uuid):
    with _active_lock:
        return uuid in _active


# -- the compare-and-swaps -----------------------------------------------

def _with_conductors(model):
    """Builds still with the conductors: building, scheduling, no host."""
    return sa.and_(model.deleted == 0,
                   model.vm_state == fields.VMState.BUILDING,
                   model.task_state == fields.TaskState.SCHEDULING,
                   model.host.is_(None))


def _handed_off(model):
    """Handed to a compute, acknowledged (``-``) or not (``-<host>``)."""
    return model.build_owner.like(HANDED_OFF + '%')


# The compare-and-swaps are Core statements on the table (see
# ``queries.by_column``), built once with bound parameters: one runs for
# every boot, and building an UPDATE costs several times running it.
_TABLE = models.Instance.__table__


def _swap_statement(condition):
    rows = _TABLE.c
    return sa.update(_TABLE).where(
        rows.uuid == sa.bindparam('b_uuid'), _with_conductors(rows),
        condition).values(build_owner=sa.bindparam('b_owner'))


_TAKE_FRESH = _swap_statement(sa.and_(
    _TABLE.c.build_owner.is_not(None), sa.not_(_handed_off(_TABLE.c)),
    _TABLE.c.build_owner.not_like(REDRIVEN + '%')))
_TAKE_HANDED_BACK = _swap_statement(sa.or_(
    _handed_off(_TABLE.c), _TABLE.c.build_owner.is_(None)))
_HAND_OFF = _swap_statement(_TABLE.c.build_owner.in_(
    [sa.bindparam('b_mine'), sa.bindparam('b_redriven')]))
_CLAIM_LOST = _swap_statement(
    _TABLE.c.build_owner == sa.bindparam('b_was'))


@db_api.one_statement_writer
def _swap(context, statement, uuid, owner, **params):
    result = context.session.execute(statement, dict(
        params, b_uuid=uuid, b_owner=owner))
    return result.rowcount == 1


@db_api.reader
def _owner_of(context, uuid):
    model = models.Instance
    return context.session.scalar(sa.select(model.build_owner).where(
        model.uuid == uuid, model.deleted == 0))


def take_fresh(context, uuid):
    """Take a fresh build's cast. 'untracked' if it has no owner, True if
    taken, False if it was re-driven or handed off already (the cast is a
    stale duplicate: drop it)."""
    if _swap(context, _TAKE_FRESH, uuid, token()):
        return True
    return 'untracked' if _owner_of(context, uuid) is None else False


def take_handed_back(context, uuid):
    """Take a build a compute handed back (a reschedule). True if it is
    now ours; False if it is not tracked (nothing else moves it)."""
    return _swap(context, _TAKE_HANDED_BACK, uuid, token())


def hand_off(context, uuid, host):
    """Before the cast to compute ``host``: ours -> handed to ``host``,
    not acknowledged yet. False if another conductor re-drove it
    meanwhile (do not cast)."""
    mine = token()
    return _swap(context, _HAND_OFF, uuid, HANDED_OFF + host,
                 b_mine=mine, b_redriven=REDRIVEN + mine)


@db_api.one_statement_writer
def acknowledge(context, uuid, host):
    """Compute ``host`` received the build: ``-<host>[#<n>]`` -> ``-``.
    False if it was not waiting for that host (a duplicate receipt, or
    the build moved on)."""
    model = models.Instance
    waiting = HANDED_OFF + host
    result = context.session.execute(sa.update(model).where(
        model.uuid == uuid, model.deleted == 0,
        sa.or_(model.build_owner == waiting,
               model.build_owner.startswith(waiting + RECASTS,
                                            autoescape=True))).values(
        build_owner=HANDED_OFF).execution_options(
        synchronize_session=False))
    return result.rowcount == 1


@db_api.one_statement_writer
def count_recast(context, uuid, host, recasts):
    """After casting a lost build again to ``host``: ``-<host>`` ->
    ``-<host>#<recasts>``, so the next conductor to find it lost knows
    how often it was re-cast. False (nothing to count) if the compute
    acknowledged meanwhile or the build moved on."""
    model = models.Instance
    result = context.session.execute(sa.update(model).where(
        model.uuid == uuid, model.deleted == 0,
        model.build_owner == HANDED_OFF + host).values(
        build_owner='%s%s%s%d' % (HANDED_OFF, host, RECASTS, recasts))
        .execution_options(synchronize_session=False))
    return result.rowcount == 1


def claim_lost(context, uuid, owner):
    """Re-drive a lost build: ``owner`` -> ours, marked re-driven. True
    for exactly one of the conductors racing for it."""
    return _swap(context, _CLAIM_LOST, uuid, REDRIVEN + token(),
                 b_was=owner)


@db_api.reader
def builds_with_conductors(context):
    """[(uuid, owner, updated_at)] of the owned builds still with the
    conductors, oldest first."""
    model = models.Instance
    rows = context.session.execute(sa.select(
        model.uuid, model.build_owner,
        sa.func.coalesce(model.updated_at, model.created_at)).where(
        _with_conductors(model), model.build_owner.is_not(None),
        sa.not_(_handed_off(model))).order_by(model.id))
    return [tuple(row) for row in rows]


@db_api.reader
def unacknowledged_casts(context, grace):
    """[(uuid, owner)] of the builds cast to a compute more than
    ``grace`` seconds ago that the compute has not acknowledged (nor
    started: it would have set the host), oldest first."""
    model = models.Instance
    since = timeutils.utcnow().replace(tzinfo=None) - datetime.timedelta(
        seconds=grace)
    rows = context.session.execute(sa.select(
        model.uuid, model.build_owner).where(
        _with_conductors(model),
        model.build_owner.like(HANDED_OFF + '_%'),
        sa.func.coalesce(model.updated_at, model.created_at) < since)
        .order_by(model.id))
    return [tuple(row) for row in rows]


def cast_target(owner):
    """The compute host an unacknowledged ``-<host>[#<n>]`` owner
    names."""
    return _unacknowledged(owner)[0]


def recasts(owner):
    """How many times the build of an unacknowledged owner was cast
    again."""
    return _unacknowledged(owner)[1]


def _unacknowledged(owner):
    host, sep, count = owner[len(HANDED_OFF):].rpartition(RECASTS)
    if sep and count.isdigit():
        return host, int(count)
    return owner[len(HANDED_OFF):], 0


def find_lost(context, grace):
    """The builds to re-drive: [(uuid, owner)].

    Another process's build is lost when its owner is gone. This
    process's own build (provisioned here) is lost when nothing here
    works on it and it has waited ``grace`` seconds for its cast: the
    cast never arrived (lost on the bus).
    """
    builds = builds_with_conductors(context)
    if not builds:
        return []
    services = _conductors(context)
    lost = []
    for uuid, owner, updated_at in builds:
        if _mine(owner):
            if is_active(uuid) or not _older_than(updated_at, grace):
                continue
        elif not is_gone(context, owner, services):
            continue
        lost.append((uuid, owner))
    return lost


def _older_than(stamp, seconds):
    if stamp is None:
        return True
    now = timeutils.utcnow().replace(tzinfo=None)
    return (now - stamp).total_seconds() > seconds


# A move's conductor step: the conductor that took a resize or migration
# names itself in the same column while the move is in resize_prep (its
# start, in move_records.start_move); lost_actions.py ends a move whose
# owner is gone before any compute took it up.

def own_move_in_session(context, session, uuid):
    """Name this process the owner of ``uuid``'s move, in the caller's
    transaction (nothing while an older conductor runs)."""
    if enabled(context):
        session.execute(sa.update(models.Instance).where(
            models.Instance.uuid == uuid).values(build_owner=token()))


@db_api.reader
def owner_of(context, uuid):
    """The owner value of instance ``uuid`` (None if none)."""
    return context.session.scalar(sa.select(models.Instance.build_owner)
                                  .where(models.Instance.uuid == uuid))
