"""A host NUMA cell as the compute reports it and the scheduler uses it.

The compute reports each cell as a dict: ``id``, ``cpuset`` (host CPUs
for shared guest CPUs, from ``cpu_shared_set``), ``pcpuset`` (host CPUs
for pinned guest CPUs, from ``cpu_dedicated_set``), ``siblings`` (lists
of thread siblings), ``memory_mb``, ``mempages`` (see ``pages``) and
``socket``. An older report with only ``cpus`` means one set for both
uses, as Nova treats a host configured with ``vcpu_pin_set``. Usage
(``cpu_usage``, ``memory_usage``, ``pinned_cpus``, pages ``used``) starts
at what the report says and grows with the instances on the host.
"""

import dataclasses


@dataclasses.dataclass
class HostCell:
    id: int
    cpuset: frozenset
    pcpuset: frozenset
    siblings: list
    memory: int
    mempages: list
    socket: object = None
    cpu_usage: int = 0
    memory_usage: int = 0
    pinned_cpus: frozenset = frozenset()

    @property
    def free_pcpus(self):
        return self.pcpuset - self.pinned_cpus

    @property
    def avail_memory(self):
        return self.memory - self.memory_usage

    def free_siblings(self):
        """The free dedicated CPUs of each core, in reported order."""
        free = self.free_pcpus
        return [sib & free for sib in self.siblings]

    def threads_per_core(self):
        return max((len(sib) for sib in self.siblings), default=0) or 1


def _cpus(value):
    return frozenset(int(cpu) for cpu in value or ())


def from_report(cell):
    """The HostCell of one reported cell dict."""
    legacy = _cpus(cell.get('cpus'))
    cpuset = _cpus(cell['cpuset']) if 'cpuset' in cell else legacy
    pcpuset = _cpus(cell['pcpuset']) if 'pcpuset' in cell else legacy
    siblings = cell.get('siblings')
    if not siblings:
        # No thread information: every CPU a core of its own.
        siblings = [[cpu] for cpu in sorted(cpuset | pcpuset)]
    return HostCell(
        id=cell.get('id', 0), cpuset=cpuset, pcpuset=pcpuset,
        siblings=[frozenset(sib) for sib in siblings],
        memory=cell.get('memory_mb') or 0,
        mempages=[dict(pool) for pool in cell.get('mempages') or ()],
        socket=cell.get('socket'),
        cpu_usage=cell.get('cpu_usage') or 0,
        memory_usage=cell.get('memory_usage') or 0,
        pinned_cpus=_cpus(cell.get('pinned_cpus')))


def to_report(cell):
    """The dict form of a HostCell (as ``host_state.numa_topology``)."""
    return {'id': cell.id, 'cpus': sorted(cell.cpuset | cell.pcpuset),
            'cpuset': sorted(cell.cpuset), 'pcpuset': sorted(cell.pcpuset),
            'siblings': [sorted(sib) for sib in cell.siblings],
            'memory_mb': cell.memory,
            'mempages': [dict(pool) for pool in cell.mempages],
            'socket': cell.socket, 'cpu_usage': cell.cpu_usage,
            'memory_usage': cell.memory_usage,
            'pinned_cpus': sorted(cell.pinned_cpus)}


def has_siblings_info(cells):
    """Nova's test for hyperthreading before a ``require`` thread
    policy: some cell reports thread siblings."""
    return any(cell.get('siblings') for cell in cells)
