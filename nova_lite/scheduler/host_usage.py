"""What the instances on a node use of its NUMA cells and PCI devices.

The compute reports the node's NUMA cells and PCI device pools as the
hardware has them; the scheduler works out their usage from the live
instances it knows on the node (and those it has just claimed for), with
the same reading of the flavor and image that NUMATopologyFilter and
PciPassthroughFilter apply to a request:

* NUMA: the instances are placed one after another, oldest first, as
  Nova's scheduler places each instance it claims for
  (numa_fit_instance_to_host with the host's allocation ratios, then
  numa_usage_from_instance_numa; see ``nova_lite.scheduler.numa``), so
  the last instance claimed sees the usage of those before it. An
  instance that fits only without the ratios (they were lowered since)
  is placed so; one that fits nowhere (the view lags reality) is still
  counted, on the cells with the most free memory. Instances without a
  topology use no cell, as in Nova.
* PCI: an instance whose flavor has ``pci_passthrough:alias`` takes its
  devices from the pools its NUMA affinity policy allows on the cells it
  was placed on, or, without a topology, from the first pools that match
  each alias of ``[pci] alias``.

Both are pure functions of (reported hardware, instances): the host
manager recomputes them whenever either changes.
"""

import types

from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.scheduler.filters import pci_passthrough_filter
from nova_lite.scheduler.numa import fit as numa_fit
from nova_lite.scheduler.numa import host as numa_host
from nova_lite.scheduler.numa import placement
from nova_lite.scheduler.numa import usage as numa_usage_mod

LOG = logging.getLogger(__name__)


def _as_request(instance):
    """An instance as the filters' request readers expect a spec."""
    props = getattr(instance, 'image_properties', None) or {}
    return types.SimpleNamespace(
        flavor=instance.flavor,
        image=types.SimpleNamespace(properties=dict(props)))


def _numa_request(instance):
    if getattr(instance, 'flavor', None) is None:
        return None
    try:
        # Remembered per flavor and image: a node's usage is worked out
        # again at every change, from instances sharing a few flavors.
        return placement.NumaRequest.cached(_as_request(instance))
    except (TypeError, ValueError, exception.PciInvalidAlias) as exc:
        LOG.debug('Instance %s has an unusable NUMA request: %s',
                  instance.uuid, exc)
        return None


# (reader, id(flavor), id(image properties), [pci] alias) -> (flavor,
# image properties, what ``reader`` reads of the instance): how an
# instance reads, by the identity of its flavor and image properties.
# The instances of a fleet share a few of each (host_compact's
# profiles), and reading them by content costs tens of microseconds per
# instance, which a load pays for every instance on a node with cells.
# The objects are held, so their ids are not reused while kept; they
# are not changed once an instance holds them.
_READINGS = {}
_READINGS_MAX = 4096


def _reading(reader, instance, aliases):
    """``reader(instance)`` (``_numa_request`` or ``_requested``),
    remembered by the identity of the instance's flavor and image
    properties."""
    flavor = getattr(instance, 'flavor', None)
    props = getattr(instance, 'image_properties', None)
    key = (reader, id(flavor), id(props), aliases)
    found = _READINGS.get(key)
    if found is None or found[0] is not flavor or found[1] is not props:
        if len(_READINGS) >= _READINGS_MAX:
            _READINGS.clear()
        found = _READINGS[key] = (flavor, props, reader(instance))
    return found[2]


def _fit(cells, wanted, pci_pools, ratios):
    """The FittedCells of a guest on ``cells`` (see the module doc)."""
    fitted = placement.place(wanted, cells, pci_pools, ratios)
    if fitted is None and ratios is not None:
        fitted = placement.place(wanted, cells, pci_pools, None)
    if fitted is None:
        fitted = numa_fit.forced(placement.host_cells(cells), wanted.cells)
    return fitted


def _add(cells, fitted):
    host_cells = numa_usage_mod.add_guest(placement.host_cells(cells),
                                          fitted)
    return [numa_host.to_report(cell) for cell in host_cells]


def node_usage(cells, pci_pools, instances, cpu_ratio=1.0, ram_ratio=1.0):
    """(NUMA cells, free PCI pools): copies of the reported ones with the
    instances, oldest first, placed on them as Nova's scheduler places
    each instance it claims for: the guest's cells are fitted against
    the pools left, then its devices are taken from the pools its NUMA
    affinity allows on those cells (the first matching pools when it has
    no topology, or when the rules cannot supply them any more)."""
    cells = [dict(cell) for cell in cells]
    pools = [dict(pool) for pool in pci_pools]
    aliases = tuple(CONF.pci.alias)
    for instance in instances:
        wanted = (_reading(_numa_request, instance, aliases) if cells
                  else None)
        left = None
        if wanted is not None:
            fitted = _fit(cells, wanted, pools, (cpu_ratio, ram_ratio))
            if pools and wanted.pci_wanted:
                left = placement.take_devices(wanted, cells, pools, fitted)
            cells = _add(cells, fitted)
        if left is None and pools and _reading(_requested, instance,
                                               aliases):
            left = free_pci_pools(pools, [instance])
        if left is not None:
            pools = left
    return cells, pools


def numa_usage(cells, instances, cpu_ratio=1.0, ram_ratio=1.0,
               pci_pools=()):
    """Copies of the reported ``cells`` with the instances' usage added
    (see ``node_usage``)."""
    return node_usage(cells, pci_pools, instances, cpu_ratio, ram_ratio)[0]


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
