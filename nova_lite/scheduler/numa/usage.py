"""Host cells after a fitted guest is added (Nova's
numa_usage_from_instance_numa).

For each host cell a guest cell sits on: memory_usage grows by its
memory and cpu_usage by its shared CPUs; the pages it takes (its page
size, or the cell's smallest when it asked for none) are used; pinned
guest CPUs and an isolated emulator's CPU are pinned, with their whole
cores under the ``isolate`` thread policy.
"""

import dataclasses

from nova_lite.scheduler.numa import pages
from nova_lite.scheduler.numa import request


def _use_pages(mempages, size, memory_mb):
    result = []
    for pool in mempages:
        if pool['size_kb'] == size:
            pool = dict(pool, used=max(
                0, pool.get('used', 0) + memory_mb * 1024 // size))
        result.append(pool)
    return result


def _pins(cell, fitted):
    pinned = set(fitted.pinning.values()) | set(fitted.reserved)
    if fitted.guest.thread_policy == request.ISOLATE:
        whole = set()
        for core in cell.siblings:
            if core & pinned:
                whole |= core
        pinned = whole
    return pinned


def add_guest(cells, fitted_cells):
    """New HostCells: ``cells`` with the FittedCells' usage added."""
    result = []
    for cell in cells:
        new = dataclasses.replace(cell, mempages=list(cell.mempages))
        for fitted in fitted_cells:
            if fitted.host_id != cell.id:
                continue
            guest = fitted.guest
            if new.mempages:
                size = fitted.pagesize or pages.smallest(new.mempages)
                new.mempages = _use_pages(new.mempages, size, guest.memory)
            new.memory_usage += guest.memory
            new.cpu_usage += len(guest.cpuset)
            if guest.pinned:
                new.pinned_cpus = new.pinned_cpus | _pins(new, fitted)
        result.append(new)
    return result
