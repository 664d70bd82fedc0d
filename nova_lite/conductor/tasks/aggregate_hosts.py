"""Aggregate membership, mirrored into placement.

Runs in the conductor. The API's os-aggregates handlers reach it through
the remotable ``Aggregate.add_host`` and ``delete_host`` (object_action
brings them here); the Aggregate object only writes its rows.

While a host is in an aggregate, the aggregate's uuid is among the
placement aggregates of the providers of that host's compute nodes. One
step, one transaction: the membership and the placement aggregates are
written together, so placement prefilters (``member_of``) always agree
with the aggregate, and a failure writes neither (a provider generation
conflict retries the whole transaction). A node without a provider yet
gets its aggregates at its first report (``conductor.provider_report``).

Both return the provider uuids whose placement aggregates moved. The
schedulers hear of it from the writes themselves (``placement.changes``):
the providers whose generation moved and the aggregate's uuid, so they
reload its hosts and metadata too.
"""

import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import exception
from nova_lite.objects import aggregate as aggregate_obj
from nova_lite.placement import generation
from nova_lite.placement import providers

_AGGREGATE = aggregate_obj.Aggregate


def _node_uuids(session, host):
    return session.scalars(sa.select(models.ComputeNode.uuid).where(
        models.ComputeNode.host == host).order_by(
        models.ComputeNode.id)).all()


def _mirror(session, host, aggregate_uuid, present):
    """Add (or remove) ``aggregate_uuid`` on the providers of ``host``'s
    nodes; return the provider uuids changed."""
    changed = []
    for node_uuid in _node_uuids(session, host):
        wanted = {aggregate_uuid} if present else set()
        try:
            moved = providers.set_aggregates_in_session(
                session, node_uuid, wanted, owned={aggregate_uuid})
        except exception.ResourceProviderNotFound:
            continue
        if moved:
            changed.append(node_uuid)
    return changed


@generation.retry_on_conflict
@db_api.writer
def _add_host_in_db(context, aggregate_id, host):
    session = context.session
    row = _AGGREGATE._add_host_in_session(session, aggregate_id, host)
    return row, _mirror(session, host, row.uuid, present=True)


@generation.retry_on_conflict
@db_api.writer
def _delete_host_in_db(context, aggregate_id, host):
    session = context.session
    row = _AGGREGATE._delete_host_in_session(session, aggregate_id, host)
    return row, _mirror(session, host, row.uuid, present=False)


def add_host(context, aggregate, host):
    """Put ``host`` in ``aggregate`` (refreshed from its row) and in its
    placement aggregate; return the provider uuids changed. Raises
    AggregateHostExists (409)."""
    row, changed = _add_host_in_db(context, aggregate.id, host)
    _AGGREGATE._from_db_object(context, aggregate, row)
    return changed


def delete_host(context, aggregate, host):
    """Take ``host`` out of ``aggregate`` and of its placement aggregate;
    return the provider uuids changed. Raises AggregateHostNotFound
    (404)."""
    row, changed = _delete_host_in_db(context, aggregate.id, host)
    _AGGREGATE._from_db_object(context, aggregate, row)
    return changed
