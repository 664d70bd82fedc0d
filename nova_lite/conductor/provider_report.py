"""A compute's report of one node, written to the placement tables.

Two things of a provider are not the compute's to decide, and are synced
here from the database on every report instead: COMPUTE_STATUS_DISABLED
(the service's disabled flag, which an administrator may have changed
after the compute read it) and the placement aggregates that mirror the
host's aggregates (a node created after its host joined an aggregate).
"""

import os_traits

from nova_lite.conductor.tasks import service_disabled
from nova_lite import objects
from nova_lite.placement import providers

_DISABLED = os_traits.COMPUTE_STATUS_DISABLED


def _resolve(resource_class, record, current):
    """Inventory for placement: decide the allocation ratio.

    A ratio forced by the compute's configuration wins; otherwise the one
    already on the provider stays (an operator may have set it), and a new
    inventory starts at the initial ratio.
    """
    ratio = record.get('allocation_ratio')
    if ratio is None:
        existing = current.get(resource_class)
        ratio = (existing.allocation_ratio if existing is not None
                 else record.get('initial_allocation_ratio') or 1.0)
    return {'total': record['total'],
            'reserved': record.get('reserved', 0),
            'min_unit': record.get('min_unit', 1),
            'max_unit': record.get('max_unit', record['total']) or 1,
            'step_size': record.get('step_size', 1),
            'allocation_ratio': float(ratio)}


def update_compute_provider(context, compute_node, inventories, traits,
                            owned_traits):
    """Make the node's provider match the report.

    Returns (changed, inventories written): whether anything moved, and
    {resource_class: record} as placement now holds it, so the compute
    learns ratios an operator set on the provider.
    """
    uuid = compute_node.uuid
    providers.ensure_provider(context, uuid, compute_node.hypervisor_hostname)
    current = providers.get_inventories(context, uuid)
    wanted = {rc: _resolve(rc, record, current)
              for rc, record in inventories.items()}
    changed = providers.set_inventories(context, uuid, wanted)
    traits = set(traits) - {_DISABLED}
    owned = (set(owned_traits) | traits) - {_DISABLED}
    changed |= providers.set_traits(context, uuid, traits, owned=owned)
    changed |= bool(service_disabled.sync_disabled_trait(
        context, compute_node.host, [uuid]))
    changed |= _sync_aggregates(context, compute_node)
    return changed, wanted


def _sync_aggregates(context, compute_node):
    """Add the host's aggregates to the provider's placement aggregates
    (never removing any: leaving an aggregate removes it at once)."""
    aggregates = objects.AggregateList.get_by_host(context,
                                                   compute_node.host)
    uuids = {aggregate.uuid for aggregate in aggregates}
    if not uuids:
        return False
    return providers.set_aggregates(context, compute_node.uuid, uuids,
                                    owned=uuids)
