"""One request against one host's NUMA cells: the entry points the
filter and the host usage use.

``NumaRequest.of(spec_obj)`` reads a request once (guest cells, emulator
isolation, PCI devices with their NUMA policy); ``place(request,
reported_cells, pci_pools, ratios)`` answers where the guest goes on a
host, or None.
"""

import dataclasses

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.scheduler.filters import pci_passthrough_filter as pci_filter
from nova_lite.scheduler.numa import fit
from nova_lite.scheduler.numa import host
from nova_lite.scheduler.numa import pci_affinity
from nova_lite.scheduler.numa import request
from nova_lite.scheduler import partitions
from nova_lite.scheduler import utils


@dataclasses.dataclass(frozen=True)
class NumaRequest:
    """What NUMATopologyFilter reads of a request (hashable)."""
    cells: tuple
    isolate_emulator: bool
    pci_wanted: tuple   # ((alias specs or None, count, policy), ...)
    require_siblings: bool

    @classmethod
    def of(cls, spec_obj):
        """The request's NumaRequest, or None when it asks for no NUMA
        topology. Raises ValueError for a request Nova's API refuses."""
        cells = request.guest_topology(spec_obj)
        if cells is None:
            return None
        return cls(tuple(cells), request.emulator_threads_isolated(spec_obj),
                   _pci_wanted(spec_obj), _asks_siblings(spec_obj))


    @classmethod
    def cached(cls, spec_obj):
        """As ``of``, remembered by the request's content (flavor, image
        properties, ``[pci] alias``): filters read a request once per
        host on their per-host paths."""
        key = _content_key(spec_obj)
        found = _KNOWN.get(key)
        if found is None:
            try:
                found = (cls.of(spec_obj), None)
            except (TypeError, ValueError,
                    exception.PciInvalidAlias) as exc:
                found = (None, exc)
            if len(_KNOWN) >= _KNOWN_MAX:
                _KNOWN.clear()
            _KNOWN[key] = found
        if found[1] is not None:
            raise found[1]
        return found[0]


# Request content -> (NumaRequest or None, exception or None).
_KNOWN = {}
_KNOWN_MAX = 4096


def _content_key(spec_obj):
    flavor = spec_obj.flavor
    props = utils.image_props(spec_obj)
    if props is not None and hasattr(props, 'to_dict'):
        props = props.to_dict()
    return (flavor.vcpus, flavor.memory_mb,
            partitions.freeze(dict(utils.extra_specs(spec_obj))),
            partitions.freeze(dict(props or {})), tuple(CONF.pci.alias))


def _asks_siblings(spec_obj):
    """Nova's early test: dedicated and require named by flavor or image
    (each read on its own, as the filter does)."""
    specs = utils.extra_specs(spec_obj)
    policies = (specs.get('hw:cpu_policy'),
                utils.image_prop(spec_obj, 'hw_cpu_policy'))
    threads = (specs.get('hw:cpu_thread_policy'),
               utils.image_prop(spec_obj, 'hw_cpu_thread_policy'))
    return request.DEDICATED in policies and request.REQUIRE in threads


def _affinity_policy(spec_obj):
    specs = utils.extra_specs(spec_obj)
    flavor = specs.get('hw:pci_numa_affinity_policy')
    image = utils.image_prop(spec_obj, 'hw_pci_numa_affinity_policy')
    if flavor and image and flavor != image:
        raise ValueError('the image PCI NUMA affinity policy %s conflicts '
                         'with the flavor %s' % (image, flavor))
    policy = flavor or image
    if policy and policy not in pci_affinity.POLICIES:
        raise ValueError('%s is not a PCI NUMA affinity policy' % policy)
    return policy


def _pci_wanted(spec_obj):
    wanted = pci_filter.requested_devices(spec_obj)
    if not wanted:
        return ()
    override = _affinity_policy(spec_obj)
    aliases = pci_filter.parse_aliases(CONF.pci.alias)
    policies = pci_filter.alias_numa_policies(CONF.pci.alias)
    return tuple(
        (_freeze_specs(aliases.get(name)), count,
         override or policies.get(name) or 'legacy')
        for name, count in wanted)


def _freeze_specs(specs):
    """Alias specs as a hashable tuple of tuples (None stays None)."""
    if specs is None:
        return None
    return tuple(tuple(sorted(spec.items())) for spec in specs)


def host_cells(reported):
    return [host.from_report(cell) for cell in reported]


def pci_request(numa_request, pci_pools):
    """The pci_affinity.PciRequest of the request on these pools, or
    None when it wants no devices or the host has no pools."""
    if not (numa_request.pci_wanted and pci_pools):
        return None
    wanted = tuple((None if specs is None else [dict(s) for s in specs],
                    count, policy)
                   for specs, count, policy in numa_request.pci_wanted)
    return pci_affinity.PciRequest(tuple(pci_pools), wanted)


def place(numa_request, reported, pci_pools=(), ratios=None):
    """[fit.FittedCell] of the request on a host whose cells were
    ``reported`` (dicts with usage), or None when it does not fit."""
    if numa_request.require_siblings and not host.has_siblings_info(
            reported):
        return None
    return fit.fit_topology(
        host_cells(reported), list(numa_request.cells), ratios,
        pci_request(numa_request, pci_pools), numa_request.isolate_emulator,
        CONF.packing_host_numa_cells_allocation_strategy)


def take_devices(numa_request, reported, pci_pools, fitted):
    """The pools left once the request's devices are taken for a guest
    placed on ``fitted`` cells (Nova's apply_requests with the instance
    cells), or None when the affinity rules cannot supply them."""
    pci = pci_request(numa_request, pci_pools)
    if pci is None:
        return None
    by_id = {cell.id: cell for cell in host_cells(reported)}
    return pci_affinity.take(pci, [f.host_id for f in fitted], by_id)
