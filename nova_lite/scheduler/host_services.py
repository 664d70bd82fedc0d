"""The compute services the scheduler must look at again: those not
plainly up and enabled now, and those that were not at the last look.

A periodic re-read of every service costs a Python object per host every
few seconds, which at 100,000 hosts is seconds of CPU competing with the
decisions. A service that is up, enabled and not forced down, and was so
at the last look, changes nothing in the host states (its heartbeat time
aside), so it need not be read: only the others are.
"""

import datetime

import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import objects


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
