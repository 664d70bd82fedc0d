"""NUMATopologyFilter: hosts whose NUMA cells can hold the guest's.

The guest topology comes from the flavor and image (see
``nova_lite.scheduler.numa.request``); the fit follows Nova's
(``nova_lite.scheduler.numa.fit``): page sizes and huge pages, shared and
dedicated CPU sets, pinning under a thread policy, the allocation ratios
per cell, and the NUMA affinity of requested PCI devices.
"""

from nova_lite import exception
from nova_lite.scheduler.filters import rules
from nova_lite.scheduler.numa import host as numa_host
from nova_lite.scheduler.numa import placement
from nova_lite.scheduler import partitions
from nova_lite.scheduler import utils


def numa_request(spec_obj):
    """The request's placement.NumaRequest, or None; ValueError for a
    request Nova's API would refuse (PciInvalidAlias for a bad
    ``[pci] alias``)."""
    return placement.NumaRequest.cached(spec_obj)


def host_key(host_state):
    """What ``NUMATopologyFilter`` reads of a host for a request without
    PCI devices."""
    return (partitions.freeze(getattr(host_state, 'numa_topology', None)
                              or []),
            host_state.cpu_allocation_ratio, host_state.ram_allocation_ratio)


def host_key_with_pci(host_state):
    """As host_key, with the host's free PCI pools."""
    return host_key(host_state) + (
        partitions.freeze(utils.pci_pools(host_state)),)


def _ratios(host_state):
    return (host_state.cpu_allocation_ratio,
            host_state.ram_allocation_ratio)


class NUMATopologyFilter(rules.RuleFilter):
    """Passes every host for a request without a NUMA topology; for one
    with a topology, hosts with NUMA cells (``host_state.numa_topology``)
    that take every guest cell as Nova's numa_fit_instance_to_host does,
    with the host's cpu and ram allocation ratios applied per cell to
    shared guests. Rejection reasons: "have no NUMA topology", "have
    fewer than <n> NUMA cells", "have no thread siblings", "no fit for
    <n> NUMA cells", "bad NUMA request: <why>".
    """

    # The image's NUMA properties may change on a rebuild (as in Nova).
    RUN_ON_REBUILD = True

    def parse_request(self, spec_obj):
        try:
            wanted = numa_request(spec_obj)
        except (TypeError, ValueError, exception.PciInvalidAlias) as exc:
            return rules.Refused('bad NUMA request: %s' % exc)
        return rules.EVERY_HOST if wanted is None else wanted

    def failure(self, host_state, wanted):
        cells = getattr(host_state, 'numa_topology', None) or []
        if not cells:
            return 'have no NUMA topology'
        if len(wanted.cells) > len(cells):
            return 'have fewer than %d NUMA cells' % len(wanted.cells)
        if wanted.require_siblings and not numa_host.has_siblings_info(
                cells):
            return 'have no thread siblings'
        fitted = placement.place(wanted, cells, utils.pci_pools(host_state),
                                 _ratios(host_state))
        if fitted is None:
            return 'no fit for %d NUMA cells' % len(wanted.cells)
        return None

    def partition(self, wanted):
        if wanted.pci_wanted:
            return 'numa_pci', host_key_with_pci
        return 'numa', host_key
