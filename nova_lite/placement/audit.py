"""Placement audit: allocations and instances that disagree.

Two kinds of finding (``nova-lite-manage placement audit``, and a line of
``nova-lite-status upgrade check``):

* an *orphaned allocation*: a consumer holds allocations but is neither a
  live instance nor a move in progress (a migration holds its source host
  until the move is confirmed, reverted or fails);
* a *missing allocation*: a live instance with a host that holds its
  quota but no allocation. A build that failed for good gave its quota
  back and holds nothing on purpose, so it is not a finding.

``fix`` removes orphaned allocations and claims a missing one's flavor on
the provider of the instance's node, with capacity checked (a node that
has no room is reported, not overcommitted).

    found = audit.find(context)
    for result in audit.fix(context, found): ...
"""

import collections

from oslo_serialization import jsonutils
import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import exception
from nova_lite.placement import allocations

Orphan = collections.namedtuple(
    'Orphan', 'consumer project_id user_id usage created_at')
Missing = collections.namedtuple(
    'Missing', 'instance project_id user_id host node provider resources '
               'vm_state')
Findings = collections.namedtuple('Findings', 'orphans missing')


def find(context):
    """Findings(orphans, missing) of the database now."""
    return _find(context)


@db_api.reader
def _find(context):
    session = context.session
    return Findings(_orphans(session), _missing(session))


def _orphans(session):
    alloc = models.Allocation
    query = (sa.select(alloc.consumer_id, models.ResourceProvider.uuid,
                       alloc.resource_class, alloc.used, alloc.created_at,
                       models.Consumer.project_id, models.Consumer.user_id)
             .join(models.ResourceProvider,
                   models.ResourceProvider.id == alloc.resource_provider_id)
             .outerjoin(models.Consumer,
                        models.Consumer.uuid == alloc.consumer_id)
             .where(alloc.consumer_id.not_in(allocations.live_instances()),
                    alloc.consumer_id.not_in(
                        allocations.moves_in_progress()))
             .order_by(alloc.consumer_id, alloc.id))
    found = {}
    for row in session.execute(query):
        orphan = found.setdefault(row.consumer_id, Orphan(
            row.consumer_id, row.project_id, row.user_id, {},
            row.created_at))
        orphan.usage.setdefault(row.uuid, {})[row.resource_class] = row.used
    return list(found.values())


def _missing(session):
    inst = models.Instance
    holding = sa.select(models.Allocation.consumer_id)
    rows = session.scalars(
        sa.select(inst).where(inst.deleted == 0, inst.host.is_not(None),
                              inst.quota_released.is_(False),
                              inst.uuid.not_in(holding))
        .order_by(inst.id)).all()
    return [Missing(row.uuid, row.project_id, row.user_id, row.host,
                    row.node, _provider_of(session, row),
                    instance_resources(row), row.vm_state) for row in rows]


def _provider_of(session, row):
    """The uuid of the provider the instance runs on, or None."""
    if row.compute_node_uuid:
        return row.compute_node_uuid
    if not row.node:
        return None
    # Provider names are node names.
    return session.scalars(sa.select(models.ResourceProvider.uuid).where(
        models.ResourceProvider.name == row.node)).first()


def instance_resources(row):
    """{resource class: amount} an instance row's flavor takes, counted
    as the scheduler claims it (swap in MiB rounds up to whole GiB)."""
    flavor = jsonutils.loads(row.flavor).get('nova_lite_object.data', {})
    swap_gb = (flavor.get('swap', 0) + 1023) // 1024
    wanted = {'VCPU': row.vcpus, 'MEMORY_MB': row.memory_mb,
              'DISK_GB': row.root_gb + row.ephemeral_gb + swap_gb}
    return {rc: amount for rc, amount in wanted.items() if amount}


def fix(context, findings):
    """Repair ``findings``; yield (finding, None) for each fixed and
    (finding, reason) for each left as it was."""
    for orphan in findings.orphans:
        allocations.remove(context, orphan.consumer)
        yield orphan, None
    for missing in findings.missing:
        if missing.provider is None:
            yield missing, 'its node %s has no resource provider' % (
                missing.node,)
            continue
        try:
            healed = _heal(context, missing)
        except (exception.InsufficientCapacity, exception.ClaimConflict,
                exception.ResourceProviderNotFound) as exc:
            yield missing, exc.format_message()
        else:
            yield missing, (None if healed else
                            'it changed since the audit (deleted, or '
                            'allocated meanwhile)')


@db_api.writer
def _heal(context, missing):
    """Claim ``missing``'s resources if it still lacks them (checked in
    the claim's transaction, so a concurrent claim is never doubled).
    Returns whether it claimed."""
    session = context.session
    inst = models.Instance
    still = session.scalar(sa.select(inst.id).where(
        inst.uuid == missing.instance, inst.deleted == 0,
        inst.host.is_not(None), inst.quota_released.is_(False))
        .with_for_update())
    held = session.scalar(sa.select(models.Allocation.id).where(
        models.Allocation.consumer_id == missing.instance).limit(1))
    if still is None or held is not None:
        return False
    allocations.claim_in_session(session, missing.instance,
                                 missing.project_id, missing.user_id,
                                 {missing.provider: missing.resources})
    return True
