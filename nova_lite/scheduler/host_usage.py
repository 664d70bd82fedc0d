"""What the instances on a node use of its NUMA cells and PCI devices.

The compute reports the node's NUMA cells and PCI device pools as the
hardware has them; the scheduler works out their usage from the live
instances it knows on the node (and those it has just claimed for), with
the same reading of the flavor and image that NUMATopologyFilter and
PciPassthroughFilter apply to a request:

* NUMA: an instance with a topology (``hw:numa_nodes`` / ``hw_numa_nodes``
  cells, or ``hw:cpu_policy`` / ``hw_cpu_policy`` = dedicated) takes, for
  each of its cells in order, the host cell that fits it with the most
  free memory (a cell it does not already use), adding its VCPUs and MB
  to that cell's cpu_usage and memory_usage; dedicated CPUs also pin the
  cell's lowest unpinned CPUs. Instances without a topology use no cell,
  as in Nova. An instance that fits nowhere (the view lags reality) is
  counted on the emptiest cells anyway.
* PCI: an instance whose flavor has ``pci_passthrough:alias`` takes its
  devices from the first pools that match each alias of ``[pci] alias``.

Both are pure functions of (reported hardware, instances): the host
manager recomputes them whenever either changes.
"""

import types

from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.scheduler.filters import numa_topology_filter
from nova_lite.scheduler.filters import pci_passthrough_filter

LOG = logging.getLogger(__name__)


def _as_request(instance):
    """An instance as the filters' request readers expect a spec."""
    props = getattr(instance, 'image_properties', None) or {}
    return types.SimpleNamespace(
        flavor=instance.flavor,
        image=types.SimpleNamespace(properties=dict(props)))


def _topology(instance):
    if getattr(instance, 'flavor', None) is None:
        return None
    try:
        return numa_topology_filter.instance_topology(_as_request(instance))
    except (TypeError, ValueError) as exc:
        LOG.debug('Instance %s has an unusable NUMA request: %s',
                  instance.uuid, exc)
        return None


def _free_mb(cell):
    return (cell.get('memory_mb') or 0) - (cell.get('memory_usage') or 0)


def _place_cell(cells, taken, vcpus, memory_mb, dedicated, ratios):
    """Index of the host cell for one instance cell (see module doc)."""
    free = [i for i in range(len(cells)) if i not in taken]
    if not free:
        free = list(range(len(cells)))
    fitting = [i for i in free if numa_topology_filter.cell_fits(
        cells[i], vcpus, memory_mb, dedicated, *ratios)]
    candidates = fitting or free
    return max(candidates, key=lambda i: (_free_mb(cells[i]), -i))


def _use_cell(cell, vcpus, memory_mb, dedicated):
    cell['cpu_usage'] = (cell.get('cpu_usage') or 0) + vcpus
    cell['memory_usage'] = (cell.get('memory_usage') or 0) + memory_mb
    if dedicated:
        pinned = set(cell.get('pinned_cpus') or ())
        unpinned = [cpu for cpu in sorted(cell.get('cpus') or ())
                    if cpu not in pinned]
        pinned.update(unpinned[:vcpus])
        cell['pinned_cpus'] = sorted(pinned)


def numa_usage(cells, instances, cpu_ratio=1.0, ram_ratio=1.0):
    """Copies of the reported ``cells`` with the instances' usage added."""
    result = [dict(cell, pinned_cpus=list(cell.get('pinned_cpus') or ()))
              for cell in cells]
    if not result:
        return result
    for instance in instances:
        wanted = _topology(instance)
        if wanted is None:
            continue
        taken = set()
        for vcpus, memory_mb in wanted.cells:
            index = _place_cell(result, taken, vcpus, memory_mb,
                                wanted.dedicated, (cpu_ratio, ram_ratio))
            taken.add(index)
            _use_cell(result[index], vcpus, memory_mb, wanted.dedicated)
    return result


def _aliases():
    try:
        return pci_passthrough_filter.parse_aliases(CONF.pci.alias)
    except exception.PciInvalidAlias as exc:
        LOG.warning('Cannot count PCI devices in use: %s',
                    exc.format_message())
        return None


def _matches(pool, specs):
    return any(all(str(pool.get(key, '')).lower() == str(value).lower()
                   for key, value in spec.items()) for spec in specs)


def _requested(instance):
    if getattr(instance, 'flavor', None) is None:
        return []
    try:
        return pci_passthrough_filter.requested_devices(
            _as_request(instance))
    except ValueError:
        return []


def free_pci_pools(pools, instances):
    """Copies of the reported ``pools`` with ``count`` lowered by the
    devices the instances hold (never below 0)."""
    result = [dict(pool) for pool in pools]
    if not result:
        return result
    wanted = [_requested(instance) for instance in instances]
    if not any(wanted):
        return result
    aliases = _aliases()
    if aliases is None:
        return result
    for requests in wanted:
        for name, count in requests:
            specs = aliases.get(name)
            if not specs:
                continue
            for pool in result:
                if count and _matches(pool, specs):
                    taken = min(count, pool.get('count', 0))
                    pool['count'] = pool.get('count', 0) - taken
                    count -= taken
    return result
