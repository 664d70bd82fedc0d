"""Resource providers: creation, inventories, traits and aggregates.

Each ``set_*`` replaces the whole collection, as Placement's PUT does, is a
no-op (no generation bump) when nothing changes, and returns whether it
changed anything so callers can tell schedulers which hosts moved.
"""

import collections
import re

import os_traits
import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import exception
from nova_lite.placement import changes
from nova_lite.placement import generation

INVENTORY_FIELDS = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size',
                    'allocation_ratio')
_CUSTOM_TRAIT = re.compile(r'^CUSTOM_[A-Z0-9_]+$')
_STANDARD_TRAITS = frozenset(os_traits.get_traits())

Inventory = collections.namedtuple('Inventory', INVENTORY_FIELDS)


def validate_trait(name):
    if name not in _STANDARD_TRAITS and not _CUSTOM_TRAIT.match(name):
        raise exception.InvalidTrait(name=name)


def validate_inventory(resource_class, inv):
    """Check one inventory record (a dict or Inventory); return Inventory."""
    inv = Inventory(**dict(inv._asdict() if isinstance(inv, Inventory)
                           else inv))
    if inv.total < 0 or inv.reserved < 0:
        raise exception.InvalidInventory(
            resource_class=resource_class,
            reason='total and reserved must not be negative')
    if inv.min_unit < 1 or inv.step_size < 1 or inv.max_unit < inv.min_unit:
        raise exception.InvalidInventory(
            resource_class=resource_class,
            reason='need 1 <= min_unit <= max_unit and step_size >= 1')
    if inv.allocation_ratio <= 0:
        raise exception.InvalidInventory(
            resource_class=resource_class,
            reason='allocation_ratio must be positive')
    return inv


def _get_row(session, uuid):
    row = session.scalars(sa.select(models.ResourceProvider).filter_by(
        uuid=uuid)).first()
    if row is None:
        raise exception.ResourceProviderNotFound(uuid=uuid)
    return row


@db_api.writer
def ensure_provider(context, uuid, name):
    """Create the provider if missing; return its current generation."""
    session = context.session
    row = session.scalars(sa.select(models.ResourceProvider).filter_by(
        uuid=uuid)).first()
    if row is None:
        row = models.ResourceProvider(uuid=uuid, name=name, generation=0)
        session.add(row)
        session.flush()
        row.root_provider_id = row.id
        changes.note(session, [uuid])
    elif row.name != name:
        row.name = name
    return row.generation


@db_api.reader
def get_inventories(context, uuid):
    """{resource_class: Inventory} of a provider."""
    row = _get_row(context.session, uuid)
    return _inventories(context.session, row.id)


def _inventories(session, provider_id):
    rows = session.scalars(sa.select(models.Inventory).filter_by(
        resource_provider_id=provider_id)).all()
    return {r.resource_class: Inventory(*(getattr(r, f)
                                          for f in INVENTORY_FIELDS))
            for r in rows}


@generation.retry_on_conflict
@db_api.writer
def set_inventories(context, uuid, inventories):
    """Replace a provider's inventories with ``{resource_class: record}``.

    Removing a class that still has allocations raises InventoryInUse.
    Retried whole on a generation race with a concurrent claim.
    """
    wanted = {rc: validate_inventory(rc, inv)
              for rc, inv in inventories.items()}
    session = context.session
    row = _get_row(session, uuid)
    current_generation = row.generation
    current = _inventories(session, row.id)
    if current == wanted:
        return False
    removed = set(current) - set(wanted)
    if removed:
        _check_not_in_use(session, row, removed)
    model = models.Inventory
    for rc in removed:
        session.execute(sa.delete(model).where(
            model.resource_provider_id == row.id,
            model.resource_class == rc))
    for rc, inv in wanted.items():
        if rc not in current:
            session.add(model(resource_provider_id=row.id, resource_class=rc,
                              **inv._asdict()))
        elif current[rc] != inv:
            session.execute(sa.update(model).where(
                model.resource_provider_id == row.id,
                model.resource_class == rc).values(**inv._asdict()))
    generation.bump(session, row.id, uuid, current_generation)
    return True


def _check_not_in_use(session, row, resource_classes):
    in_use = session.scalars(
        sa.select(models.Allocation.resource_class).where(
            models.Allocation.resource_provider_id == row.id,
            models.Allocation.resource_class.in_(sorted(resource_classes)))
        .distinct()).all()
    if in_use:
        raise exception.InventoryInUse(
            resource_classes=', '.join(sorted(in_use)), uuid=row.uuid)


def _trait_ids(session, names):
    """{name: id}, creating the trait rows that are missing."""
    names = set(names)
    if not names:
        return {}
    found = dict(session.execute(
        sa.select(models.Trait.name, models.Trait.id).where(
            models.Trait.name.in_(sorted(names)))).all())
    for name in sorted(names - set(found)):
        validate_trait(name)
        trait = models.Trait(name=name)
        session.add(trait)
        session.flush()
        found[name] = trait.id
    return found


@db_api.reader
def get_traits(context, uuid):
    row = _get_row(context.session, uuid)
    return _traits(context.session, row.id)


def _traits(session, provider_id):
    return set(session.scalars(
        sa.select(models.Trait.name).join(
            models.ResourceProviderTrait,
            models.ResourceProviderTrait.trait_id == models.Trait.id).where(
            models.ResourceProviderTrait.resource_provider_id ==
            provider_id)).all())


@generation.retry_on_conflict
@db_api.writer
def set_traits(context, uuid, traits, owned=None):
    """Make ``traits`` the provider's traits.

    With ``owned`` (a set of trait names the caller manages), only those are
    added or removed and every other trait on the provider is kept: that is
    how a compute keeps its capability traits current without touching
    traits an operator set (seed 000, the five ownership rules).
    """
    return set_traits_in_session(context.session, uuid, traits, owned)


def set_traits_in_session(session, uuid, traits, owned=None):
    """``set_traits`` inside a caller's transaction; the caller retries
    the whole transaction on ClaimConflict."""
    traits = set(traits)
    for name in traits:
        validate_trait(name)
    row = _get_row(session, uuid)
    current_generation = row.generation
    current = _traits(session, row.id)
    if owned is None:
        wanted = traits
    else:
        wanted = (current - set(owned)) | traits
    if wanted == current:
        return False
    link = models.ResourceProviderTrait
    to_remove = current - wanted
    if to_remove:
        ids = _trait_ids(session, to_remove).values()
        session.execute(sa.delete(link).where(
            link.resource_provider_id == row.id, link.trait_id.in_(ids)))
    for trait_id in _trait_ids(session, wanted - current).values():
        session.add(link(resource_provider_id=row.id, trait_id=trait_id))
    generation.bump(session, row.id, uuid, current_generation)
    return True


@db_api.reader
def get_aggregates(context, uuid):
    row = _get_row(context.session, uuid)
    return _aggregates(context.session, row.id)


def _aggregates(session, provider_id):
    return set(session.scalars(
        sa.select(models.PlacementAggregate.uuid).join(
            models.ResourceProviderAggregate,
            models.ResourceProviderAggregate.aggregate_id ==
            models.PlacementAggregate.id).where(
            models.ResourceProviderAggregate.resource_provider_id ==
            provider_id)).all())


@generation.retry_on_conflict
@db_api.writer
def set_aggregates(context, uuid, aggregate_uuids, owned=None):
    """Make ``aggregate_uuids`` the provider's aggregates (only among
    ``owned``, when given: see ``set_aggregates_in_session``)."""
    return set_aggregates_in_session(context.session, uuid, aggregate_uuids,
                                     owned)


def set_aggregates_in_session(session, uuid, aggregate_uuids, owned=None):
    """``set_aggregates`` inside a caller's transaction (the caller
    retries it whole on ClaimConflict).

    With ``owned`` (aggregate uuids the caller manages), only those are
    added or removed and the provider's other aggregates stay, as
    ``set_traits`` does with owned traits.
    """
    row = _get_row(session, uuid)
    current_generation = row.generation
    current = _aggregates(session, row.id)
    wanted = set(aggregate_uuids)
    if owned is not None:
        wanted |= current - set(owned)
    if wanted == current:
        return False
    link = models.ResourceProviderAggregate
    agg = models.PlacementAggregate
    known = dict(session.execute(sa.select(agg.uuid, agg.id).where(
        agg.uuid.in_(sorted(wanted | current)))).all())
    for agg_uuid in sorted(wanted - set(known)):
        new = agg(uuid=agg_uuid)
        session.add(new)
        session.flush()
        known[agg_uuid] = new.id
    gone = [known[u] for u in current - wanted]
    if gone:
        session.execute(sa.delete(link).where(
            link.resource_provider_id == row.id, link.aggregate_id.in_(gone)))
    for agg_uuid in wanted - current:
        session.add(link(resource_provider_id=row.id,
                         aggregate_id=known[agg_uuid]))
    generation.bump(session, row.id, uuid, current_generation)
    return True
