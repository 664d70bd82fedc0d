"""NUMATopologyFilter: hosts whose NUMA cells can hold the instance's.

The instance's topology comes from the flavor (or, when the flavor says
nothing, the image): ``hw:numa_nodes`` / ``hw_numa_nodes`` cells, its
VCPUs and RAM split evenly between them unless ``hw:numa_cpus.N`` (a CPU
list such as "0-3,^2") and ``hw:numa_mem.N`` (MB) give each cell's share;
``hw:cpu_policy`` / ``hw_cpu_policy`` = dedicated pins each VCPU to a host
CPU (one cell when no node count is given).
"""

import collections

import numpy as np

from nova_lite.scheduler import filters
from nova_lite.scheduler import partitions
from nova_lite.scheduler import utils

InstanceTopology = collections.namedtuple('InstanceTopology',
                                          'cells dedicated')


def parse_cpu_spec(text):
    """The set of CPU ids of "0-3,^2,6" ({0, 1, 3, 6})."""
    wanted, unwanted = set(), set()
    for part in str(text).split(','):
        part = part.strip()
        target = unwanted if part.startswith('^') else wanted
        low, _sep, high = part.lstrip('^').partition('-')
        target.update(range(int(low), int(high or low) + 1))
    return wanted - unwanted


def _setting(specs, spec_obj, flavor_key, image_key):
    value = specs.get(flavor_key)
    return utils.image_prop(spec_obj, image_key) if value is None else value


def _explicit_cells(specs, nodes, vcpus, memory_mb):
    cells = []
    for index in range(nodes):
        cpus = specs.get('hw:numa_cpus.%d' % index)
        mem = specs.get('hw:numa_mem.%d' % index)
        if cpus is None or mem is None:
            raise ValueError('hw:numa_cpus.%d and hw:numa_mem.%d are both '
                             'needed' % (index, index))
        cells.append((len(parse_cpu_spec(cpus)), int(mem)))
    if (sum(c for c, _m in cells) != vcpus
            or sum(m for _c, m in cells) != memory_mb):
        raise ValueError('the cells do not add up to the flavor')
    return cells


def instance_topology(spec_obj):
    """The InstanceTopology the request asks for, or None.

    Raises ValueError for a request Nova's API would refuse (a node
    count that does not divide the flavor, cells that do not add up).
    """
    specs = utils.extra_specs(spec_obj)
    nodes = _setting(specs, spec_obj, 'hw:numa_nodes', 'hw_numa_nodes')
    policy = _setting(specs, spec_obj, 'hw:cpu_policy', 'hw_cpu_policy')
    dedicated = policy == 'dedicated'
    if nodes is None and not dedicated:
        return None
    nodes = int(nodes or 1)
    flavor = spec_obj.flavor
    if nodes < 1:
        raise ValueError('hw:numa_nodes must be at least 1')
    if any(key.startswith('hw:numa_cpus.') for key in specs):
        cells = _explicit_cells(specs, nodes, flavor.vcpus, flavor.memory_mb)
    elif flavor.vcpus % nodes or flavor.memory_mb % nodes:
        raise ValueError('%d VCPU and %d MB do not split evenly into %d '
                         'cells' % (flavor.vcpus, flavor.memory_mb, nodes))
    else:
        cells = [(flavor.vcpus // nodes, flavor.memory_mb // nodes)] * nodes
    return InstanceTopology(cells, dedicated)


def cell_fits(host_cell, vcpus, memory_mb, dedicated, cpu_ratio, ram_ratio):
    """Whether one instance cell fits one host cell (see the filter)."""
    cpus = set(host_cell.get('cpus') or ())
    memory = host_cell.get('memory_mb') or 0
    used_mb = host_cell.get('memory_usage') or 0
    if vcpus > len(cpus) or memory_mb > memory:
        return False
    if dedicated:
        free = cpus.difference(host_cell.get('pinned_cpus') or ())
        return vcpus <= len(free) and used_mb + memory_mb <= memory
    used_cpus = host_cell.get('cpu_usage') or 0
    return (used_cpus + vcpus <= len(cpus) * cpu_ratio
            and used_mb + memory_mb <= memory * ram_ratio)


def _match(fits, count):
    """True when every instance cell gets its own host cell; ``fits[i]``
    lists the host cells instance cell i fits (bipartite matching)."""
    owner = {}

    def assign(cell, seen):
        for host_cell in fits[cell]:
            if host_cell in seen:
                continue
            seen.add(host_cell)
            if host_cell not in owner or assign(owner[host_cell], seen):
                owner[host_cell] = cell
                return True
        return False

    return all(assign(cell, set()) for cell in range(count))


def host_key(host_state):
    """What ``NUMATopologyFilter`` reads of a host."""
    return (partitions.freeze(getattr(host_state, 'numa_topology', None)
                              or []),
            host_state.cpu_allocation_ratio, host_state.ram_allocation_ratio)


class NUMATopologyFilter(filters.BaseHostFilter):
    """Passes every host for a request without a NUMA topology; for one
    with a topology, hosts whose NUMA cells (``host_state.numa_topology``)
    can each take a distinct instance cell.

    A cell fits when it has at least as many CPUs and as much memory as
    the instance cell, and: for dedicated CPUs, enough CPUs not yet
    pinned and unused memory (no overcommit); for shared CPUs,
    cpu_usage + VCPUs <= CPUs * cpu_allocation_ratio and memory_usage +
    MB <= memory * ram_allocation_ratio (the host's ratios). Rejection
    reasons: "have no NUMA topology", "have fewer than <n> NUMA cells",
    "no fit for <n> NUMA cells", "bad NUMA request: <why>".
    """

    # The image's NUMA properties may change on a rebuild (as in Nova).
    RUN_ON_REBUILD = True


    def _failure(self, host_state, spec_obj):
        try:
            wanted = instance_topology(spec_obj)
        except (TypeError, ValueError) as exc:
            return 'bad NUMA request: %s' % exc
        if wanted is None:
            return None
        host_cells = getattr(host_state, 'numa_topology', None) or []
        if not host_cells:
            return 'have no NUMA topology'
        if len(wanted.cells) > len(host_cells):
            return 'have fewer than %d NUMA cells' % len(wanted.cells)
        fits = [[i for i, cell in enumerate(host_cells)
                 if cell_fits(cell, vcpus, mem, wanted.dedicated,
                              host_state.cpu_allocation_ratio,
                              host_state.ram_allocation_ratio)]
                for vcpus, mem in wanted.cells]
        if _match(fits, len(wanted.cells)):
            return None
        return 'no fit for %d NUMA cells' % len(wanted.cells)

    def host_passes(self, host_state, spec_obj):
        return self._failure(host_state, spec_obj) is None

    def filter_population(self, population, spec_obj):
        try:
            wanted = instance_topology(spec_obj)
        except (TypeError, ValueError):
            return np.zeros(population.size, bool)
        if wanted is None:
            return True
        return population.evaluate(
            'numa', host_key, lambda host: self.host_passes(host, spec_obj),
            cache=(tuple(wanted.cells), wanted.dedicated))

    def rejection_reason(self, host_state, spec_obj):
        return self._failure(host_state, spec_obj)
