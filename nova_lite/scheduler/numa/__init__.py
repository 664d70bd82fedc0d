"""NUMA placement as Nova's NUMATopologyFilter decides it.

* ``request``: the guest topology a flavor and image ask for (cells of
  shared and dedicated guest CPUs, memory, page size, CPU and thread
  policies), or None when they ask for none.
* ``host``: a host NUMA cell as the compute reports it, with the usage
  the scheduler adds.
* ``pages``: page size requests and the cell's page pools.
* ``pinning``: dedicated guest CPUs packed onto free host cores under a
  thread policy.
* ``fit``: one guest cell on one host cell, and a whole guest topology on
  the host (the order the host cells are tried in, PCI NUMA affinity).
* ``pci_affinity``: which PCI pools a request may take devices from,
  given the host cells the guest sits on.
* ``usage``: the host cells after a fitted guest is added to them.
* ``placement``: the entry points: a request read once
  (``NumaRequest``), placed on a host's reported cells and pools.

Example::

    wanted = placement.NumaRequest.of(spec_obj)   # None: no topology
    fitted = placement.place(wanted, host_state.numa_topology,
                             host_state.pci_stats, (cpu_ratio, ram_ratio))
"""
