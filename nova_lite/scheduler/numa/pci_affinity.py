"""PCI NUMA affinity: which pools a device request may use, given the
host cells a guest sits on.

Each requested alias carries a policy: the flavor's
``hw:pci_numa_affinity_policy`` (or the image's
``hw_pci_numa_affinity_policy``) when set, else the alias' own
``numa_policy`` (``legacy`` by default):

* ``required``: only pools on the guest's host cells;
* ``legacy``: those, or, when they are too few, those plus pools with no
  NUMA node;
* ``preferred``: as legacy, and when still too few any pool (the local
  ones taken first);
* ``socket``: the guest's cells, or when too few any pool on a cell of
  the same socket as one of the guest's cells (none when a host cell
  does not say its socket).

Requests take their devices one after another from the pools left.
"""

import dataclasses

POLICIES = ('required', 'legacy', 'preferred', 'socket')


@dataclasses.dataclass(frozen=True)
class PciRequest:
    """``pools``: the host's free pools; ``wanted``: [(specs, count,
    policy)] where specs are the alias' device specs (None when the
    alias is not defined)."""
    pools: tuple
    wanted: tuple


def _on(pool, nodes):
    return pool.get('numa_node') in nodes


def _count(pools):
    return sum(pool.get('count', 0) for pool in pools)


def _by_socket(pools, guest_ids, by_id):
    cells = list(by_id.values())
    if any(cell.socket is None for cell in cells):
        return []
    sockets = {by_id[i].socket for i in guest_ids}
    nodes = {cell.id for cell in cells if cell.socket in sockets}
    return [pool for pool in pools if _on(pool, nodes)]


def allowed_pools(pools, count, policy, guest_ids, by_id):
    """The pools (in the order to take from) a request of ``count``
    devices under ``policy`` may use for a guest on ``guest_ids``."""
    local = [pool for pool in pools if _on(pool, set(guest_ids))]
    if policy == 'required' or _count(local) >= count:
        return local
    if policy == 'socket':
        return _by_socket(pools, guest_ids, by_id)
    near = set(guest_ids) | {None}
    nearby = [pool for pool in pools if _on(pool, near)]
    if policy in (None, 'legacy') or _count(nearby) >= count:
        return nearby
    return sorted(pools, key=lambda pool: not _on(pool, near))


def _matches(pool, specs):
    return any(all(str(pool.get(key, '')).lower() == str(value).lower()
                   for key, value in spec.items()) for spec in specs)


def take(pci, guest_ids, by_id):
    """Copies of the pools with every wanted device taken, in turn, for
    a guest on host cells ``guest_ids`` (``by_id``: {id: HostCell} of
    the host), or None when one request cannot be met."""
    pools = [dict(pool) for pool in pci.pools]
    for specs, count, policy in pci.wanted:
        if specs is None:
            return None
        fitting = [pool for pool in pools if _matches(pool, specs)]
        usable = allowed_pools(fitting, count, policy, guest_ids, by_id)
        if _count(usable) < count:
            return None
        for pool in usable:
            taken = min(count, pool.get('count', 0))
            pool['count'] = pool.get('count', 0) - taken
            count -= taken
    return pools


def supported(pci, guest_ids, by_id):
    """Whether every wanted device fits (see ``take``)."""
    return take(pci, guest_ids, by_id) is not None
