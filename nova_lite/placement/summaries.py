"""Bulk reads of provider state, for the scheduler's in-memory view.

Generations are read before anything else. Under READ COMMITTED a claim
that commits between the statements can then only make the usages newer
than the generation (never older), so the view errs on the side of "more
used", and the stale generation makes the next compare-and-swap fail and
refresh the host. Reading usages first would allow overcommit.
"""

import collections

import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite.placement import providers


class ProviderSummary:
    """Everything the scheduler needs of one provider, read at once."""

    __slots__ = ('uuid', 'name', 'generation', 'inventories', 'usages',
                 'traits', 'aggregates')

    def __init__(self, uuid, name, generation):
        self.uuid = uuid
        self.name = name
        self.generation = generation
        self.inventories = {}
        self.usages = collections.Counter()
        self.traits = set()
        self.aggregates = set()

    def __repr__(self):
        return '<ProviderSummary %s gen=%s>' % (self.uuid, self.generation)


def _in(column, ids):
    return column.in_(sorted(ids)) if ids is not None else sa.true()


@db_api.reader
def get_summaries(context, uuids=None):
    """{uuid: ProviderSummary} for ``uuids``, or for every provider."""
    session = context.session
    rp = models.ResourceProvider
    query = sa.select(rp.id, rp.uuid, rp.name, rp.generation)
    if uuids is not None:
        if not uuids:
            return {}
        query = query.where(rp.uuid.in_(sorted(uuids)))
    by_id = {row.id: ProviderSummary(row.uuid, row.name, row.generation)
             for row in session.execute(query)}
    ids = set(by_id) if uuids is not None else None
    _load_inventories(session, by_id, ids)
    _load_usages(session, by_id, ids)
    _load_traits(session, by_id, ids)
    _load_aggregates(session, by_id, ids)
    return {summary.uuid: summary for summary in by_id.values()}


def _load_inventories(session, by_id, ids):
    inv = models.Inventory
    columns = [getattr(inv, f) for f in providers.INVENTORY_FIELDS]
    query = sa.select(inv.resource_provider_id, inv.resource_class,
                      *columns).where(_in(inv.resource_provider_id, ids))
    for row in session.execute(query):
        summary = by_id.get(row[0])
        if summary is not None:
            summary.inventories[row[1]] = providers.Inventory(*row[2:])


def _load_usages(session, by_id, ids):
    alloc = models.Allocation
    query = (sa.select(alloc.resource_provider_id, alloc.resource_class,
                       sa.func.sum(alloc.used))
             .where(_in(alloc.resource_provider_id, ids))
             .group_by(alloc.resource_provider_id, alloc.resource_class))
    for provider_id, rc, used in session.execute(query):
        summary = by_id.get(provider_id)
        if summary is not None:
            summary.usages[rc] = int(used)


def _load_traits(session, by_id, ids):
    link = models.ResourceProviderTrait
    query = (sa.select(link.resource_provider_id, models.Trait.name)
             .join(models.Trait, models.Trait.id == link.trait_id)
             .where(_in(link.resource_provider_id, ids)))
    for provider_id, name in session.execute(query):
        summary = by_id.get(provider_id)
        if summary is not None:
            summary.traits.add(name)


def _load_aggregates(session, by_id, ids):
    link = models.ResourceProviderAggregate
    agg = models.PlacementAggregate
    query = (sa.select(link.resource_provider_id, agg.uuid)
             .join(agg, agg.id == link.aggregate_id)
             .where(_in(link.resource_provider_id, ids)))
    for provider_id, agg_uuid in session.execute(query):
        summary = by_id.get(provider_id)
        if summary is not None:
            summary.aggregates.add(agg_uuid)
