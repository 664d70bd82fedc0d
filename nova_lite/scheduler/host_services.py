"""The compute services the scheduler must look at again: those not
plainly up and enabled now, and those that were not at the last look.

A periodic re-read of every service costs a Python object per host every
few seconds, which at 100,000 hosts is seconds of CPU competing with the
decisions. A service that is up, enabled and not forced down, and was so
at the last look, changes nothing in the host states (its heartbeat time
aside), so it need not be read: only the others are.
"""

import datetime

from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import objects
from nova_lite.objects import service as service_obj
from nova_lite.scheduler import host_state


@db_api.reader
def _rows(context, binary, up_since, hosts):
    model = models.Service
    beat = sa.func.coalesce(model.last_seen_up, model.created_at)
    wanted = [model.disabled.is_(True), model.forced_down.is_(True),
              beat.is_(None), beat < up_since]
    if hosts:
        wanted.append(model.host.in_(sorted(hosts)))
    query = (sa.select(model)
             .where(model.binary == binary, sa.or_(*wanted))
             .order_by(model.id))
    return context.session.scalars(query).all()


def services_to_recheck(context, binary, now, down_time, hosts):
    """The Service objects of ``binary`` that are disabled, forced down
    or silent for more than ``down_time`` seconds as of ``now`` (naive
    UTC), and those of ``hosts`` whatever their state."""
    up_since = now - datetime.timedelta(seconds=down_time)
    return [objects.Service._from_db_object(context, objects.Service(), row)
            for row in _rows(context, binary, up_since, hosts)]


@db_api.reader
def _rows_of_hosts(context, binary, hosts):
    model = models.Service
    return context.session.scalars(
        sa.select(model).where(model.binary == binary,
                               model.host.in_(sorted(hosts)))).all()


def services_of_hosts(context, binary, hosts):
    """The Service objects of ``binary`` on ``hosts``: what a change
    notice about those hosts' nodes re-reads."""
    if not hosts:
        return []
    return [objects.Service._from_db_object(context, objects.Service(), row)
            for row in _rows_of_hosts(context, binary, hosts)]


def split(entry):
    """(service, up) of an entry of ``HostManager._services``: the
    record alone when up, a pair when not (a pair per host is 56 bytes,
    and most services are up); None: no service, so down."""
    if entry is None:
        return None, False
    if type(entry) is tuple:
        return entry
    return entry, True


def entries(services, now=None):
    """{host: entry} of Service objects (see ``_split``).

    is_up depends on the time of reading, so it is taken once per
    service rather than once per node, all at one instant (``now``, by
    default the present); the record replaces the object, which is ten
    times its size.
    """
    if now is None:
        now = timeutils.utcnow().replace(tzinfo=None)
    down_time = CONF.service_down_time
    record = host_state.ServiceRecord.of
    entries = {}
    for svc in services:
        entries[svc.host] = (record(svc) if _up_at(svc, now, down_time)
                             else (record(svc), False))
    return entries


def entries_of_rows(rows, now=None):
    """``entries`` of (ServiceRecord, created_at) pairs (the start-up
    load's rows, see ``host_rows``)."""
    if now is None:
        now = timeutils.utcnow().replace(tzinfo=None)
    down_time = CONF.service_down_time
    up_at = service_obj.up_at
    entries = {}
    for record, created_at in rows:
        up = up_at(record.forced_down, record.last_seen_up, created_at, now,
                   down_time)
        entries[record.host] = record if up else (record, False)
    return entries


def _up_at(service, now, down_time):
    up_at = getattr(service, 'up_at', None)
    return service.is_up if up_at is None else up_at(now, down_time)


_KEY_FIELDS = ('id', 'disabled', 'disabled_reason', 'forced_down')
# Where a versioned object keeps a set field (oslo.versionedobjects'
# "_obj_" prefix); anything else is read by attribute.
_KEY_ATTRS = tuple('_obj_' + name for name in _KEY_FIELDS)


def service_key(entry):
    """What of a (service, up) entry host states depend on: up, and the
    service's id, disabled flag and reason and forced_down (unset fields
    count as None)."""
    if entry is None:
        return None
    service, up = split(entry)
    if type(service) is host_state.ServiceRecord:
        return (up, service.id, service.disabled, service.disabled_reason,
                service.forced_down)
    # Read from the object's __dict__ when it can: this runs for every
    # service every few seconds.
    values = getattr(service, '__dict__', None)
    if isinstance(service, dict):
        values, names = service, _KEY_FIELDS
    elif values is not None and _KEY_ATTRS[0] in values:
        names = _KEY_ATTRS
    else:
        values = {name: getattr(service, name, None)
                  for name in _KEY_FIELDS}
        names = _KEY_FIELDS
    get = values.get
    return (up, get(names[0]), get(names[1]), get(names[2]), get(names[3]))


def unsettled_hosts(services):
    """The hosts of ``services`` whose service is down, disabled or
    forced down."""
    unsettled = set()
    for host, entry in services.items():
        up, _id, disabled, _reason, forced_down = service_key(entry)
        if not up or disabled or forced_down:
            unsettled.add(host)
    return unsettled


def changed_hosts(old, new, complete=True):
    """Hosts whose (service, up) entry differs between ``old`` and
    ``new`` in what host states depend on; with ``complete``, ``new``
    lists every service (one absent from it is gone)."""
    changed = (set(old).symmetric_difference(new) if complete
               else set(new).difference(old))
    changed.update(host for host, entry in new.items()
                   if host in old
                   and service_key(old[host]) != service_key(entry))
    return changed
