"""Pinning a guest cell's dedicated CPUs onto a host cell's free cores.

Cores are the host cell's sibling sets, each cut down to its free
dedicated CPUs. For a want of N guest CPUs:

* ``isolate``: one CPU from each of N cores that are wholly free; the
  rest of those cores is pinned too (see ``usage``). A host with thread
  siblings and separate shared and dedicated sets cannot isolate.
* ``require``: the host must have siblings; the largest thread count t
  (t >= 2) is tried first: t CPUs from each core with at least t free.
* ``prefer`` or none: as ``require`` but down to t = 1, and then any
  free CPUs one by one.

Guest CPUs are taken in ascending order and given the chosen host CPUs
in core order. ``reserved`` more host CPUs (an isolated emulator thread)
must be left over, on cores the pinning does not use under ``isolate``.
An empty want never fits (as in Nova, a ``mixed`` guest cell without
dedicated CPUs finds no pinning).
"""

import itertools

from nova_lite.scheduler.numa import request

Pinning = tuple  # ({guest cpu: host cpu}, reserved host cpus)


def _cores_with(free_cores, threads):
    return [core for core in free_cores if len(core) >= threads]


def _assign(threads, cores, guest_cpus):
    """[(guest cpu, host cpu)], or None when the cores are too few."""
    if threads * len(cores) < len(guest_cpus):
        return None
    usable = itertools.chain.from_iterable(sorted(core)[:threads]
                                           for core in cores)
    return list(zip(sorted(guest_cpus), usable, strict=False))


def _reserve(cores, pairs, count, whole_cores=False):
    """The ``count`` host CPUs set aside beyond ``pairs`` (None if none)."""
    if not pairs or not count:
        return None
    used = {host_cpu for _guest, host_cpu in pairs}
    left = []
    for core in cores:
        if whole_cores and core & used:
            continue
        left.extend(cpu for cpu in sorted(core) if cpu not in used)
    return set(left[:count]) or None


def _isolate(cell, free_cores, guest_cpus, reserved):
    per_core = cell.threads_per_core()
    whole = _cores_with(free_cores, per_core)
    if not whole:
        return None, None
    if per_core != 1 and cell.pcpuset != cell.cpuset:
        return None, None
    pairs = _assign(1, whole, guest_cpus)
    spare = _reserve(_cores_with(free_cores, 1), pairs, reserved,
                     whole_cores=True)
    return pairs, spare


def _siblings_first(cell, free_cores, guest_cpus, reserved, policy):
    if policy == request.REQUIRE and cell.threads_per_core() <= 1:
        return None, None
    pairs = spare = None
    most = max((len(core) for core in free_cores), default=0)
    for threads in range(most, 0, -1):
        if policy == request.REQUIRE and threads <= 1:
            continue
        pairs = _assign(threads, _cores_with(free_cores, threads),
                        guest_cpus)
        spare = _reserve(_cores_with(free_cores, 1), pairs, reserved)
        if pairs and not (reserved and not spare):
            return pairs, spare
    if policy != request.REQUIRE and not pairs:
        singles = [frozenset([cpu]) for core in _cores_with(free_cores, 1)
                   for cpu in sorted(core)]
        pairs = _assign(1, singles, guest_cpus)
        spare = _reserve(singles, pairs, reserved)
    return pairs, spare


def pack(cell, guest, reserved=0):
    """(pinning {guest cpu: host cpu}, reserved host cpus or None) of
    ``guest``'s dedicated CPUs on HostCell ``cell``, or None."""
    free_cores = [core for core in cell.free_siblings() if core]
    if guest.thread_policy == request.ISOLATE:
        pairs, spare = _isolate(cell, free_cores, guest.pcpuset, reserved)
    else:
        pairs, spare = _siblings_first(cell, free_cores, guest.pcpuset,
                                       reserved, guest.thread_policy)
    if not pairs or (reserved and not spare):
        return None
    return dict(pairs), frozenset(spare or ())
