"""Fitting a guest topology onto a host's NUMA cells, as Nova does.

One guest cell fits one host cell when:

* memory: with a page size asked for, a pool of that size (``small``:
  the smallest, ``large``: any other, ``any``: largest first) has enough
  free pages for the whole cell; without one, a cell with page pools
  must have enough small pages in all (free or not), and a cell without
  pools at least the guest cell's memory;
* CPUs: pinned guest CPUs (dedicated, mixed) need as many host CPUs in
  ``pcpuset``; shared guest CPUs as many in ``cpuset`` (a guest never
  overcommits against itself);
* pinned: enough free dedicated CPUs and unused memory (no overcommit),
  and a packing that honours the thread policy (``pinning``);
* otherwise: cpu_usage + shared CPUs <= len(cpuset) * cpu ratio and
  memory_usage + memory <= memory * ram ratio (the host's ratios, per
  cell).

A guest topology fits when each of its cells, in order, fits a distinct
host cell of one ordering of the host cells, tried in turn, and the
request's PCI devices can come from pools allowed by their NUMA
affinity policy for those cells. The orderings are the permutations of
the host cells sorted (only when the host has more cells than the
guest) to spread load: more free memory first, then fewer used shared
CPUs (shared guests) or more free dedicated CPUs (pinned guests), then
for a request with PCI devices the cells with more free devices first,
for one without the cells with fewer devices first. The packing
strategy reverses the first two sorts.
"""

import dataclasses
import itertools

from nova_lite.scheduler.numa import pages
from nova_lite.scheduler.numa import pci_affinity
from nova_lite.scheduler.numa import pinning


@dataclasses.dataclass(frozen=True)
class FittedCell:
    """A guest cell placed on host cell ``host_id``."""
    guest: object
    host_id: int
    pagesize: object
    pinning: dict
    reserved: frozenset


def _memory_fits(cell, guest):
    """(fits, page size the guest cell takes)."""
    if guest.pagesize:
        size = pages.choose(cell.mempages, guest.pagesize, guest.memory)
        return size is not None, size
    if cell.mempages:
        small = pages.smallest(cell.mempages)
        return bool(pages.fits(cell.mempages, small, guest.memory * 1024,
                               use_free=False)), None
    return guest.memory <= cell.memory, None


def fit_cell(cell, guest, ratios=None, reserved=0):
    """The FittedCell of GuestCell ``guest`` on HostCell ``cell``, or
    None; ``ratios`` is (cpu, ram) allocation ratios or None for no
    limits. Raises pages.PageSizeUnsupported (see pages.choose)."""
    ok, size = _memory_fits(cell, guest)
    if not ok:
        return None
    if guest.pinned:
        if len(guest.pcpuset) + reserved > len(cell.pcpuset):
            return None
    elif len(guest.cpuset) > len(cell.cpuset):
        return None
    if guest.pinned:
        if len(guest.pcpuset) + reserved > len(cell.free_pcpus):
            return None
        if guest.memory > cell.avail_memory:
            return None
        packed = pinning.pack(cell, guest, reserved)
        if packed is None:
            return None
        return FittedCell(guest, cell.id, size, *packed)
    if ratios is not None:
        cpu_ratio, ram_ratio = ratios
        if cell.cpu_usage + len(guest.cpuset) > len(cell.cpuset) * cpu_ratio:
            return None
        if cell.memory_usage + guest.memory > cell.memory * ram_ratio:
            return None
    return FittedCell(guest, cell.id, size, {}, frozenset())


def _ordered(cells, guest_cells, pci_pools, pci_requested, pack):
    """Host cells in the order Nova tries them (each sort is stable, so
    the last one weighs most)."""
    if len(cells) <= len(guest_cells):
        return list(cells)
    ordered = sorted(cells, key=lambda c: c.avail_memory, reverse=not pack)
    if guest_cells[0].pinned:
        ordered.sort(key=lambda c: len(c.free_pcpus), reverse=not pack)
    else:
        ordered.sort(key=lambda c: c.cpu_usage, reverse=pack)
    if pci_pools:
        devices = {}
        for pool in pci_pools:
            node = pool.get('numa_node')
            devices[node] = devices.get(node, 0) + pool.get('count', 0)
        ordered.sort(key=lambda c: devices.get(c.id, 0),
                     reverse=bool(pci_requested))
    return ordered


def _fit_permutation(order, guest_cells, ratios, isolate_emulator):
    fitted = []
    pairs = zip(order, guest_cells, strict=False)
    for position, (cell, guest) in enumerate(pairs):
        reserved = 1 if isolate_emulator and position == 0 else 0
        try:
            got = fit_cell(cell, guest, ratios, reserved)
        except pages.PageSizeUnsupported:
            return None
        if got is None:
            return None
        fitted.append(got)
    return fitted


def fit_topology(cells, guest_cells, ratios=None, pci=None,
                 isolate_emulator=False, pack=False):
    """[FittedCell] of the first ordering of HostCells ``cells`` that
    takes every GuestCell of ``guest_cells``, or None.

    ``pci`` is None or a pci_affinity.PciRequest (the host's free pools
    and the wanted devices); a placement whose cells cannot get the
    devices is skipped.
    """
    if not cells or not guest_cells or len(cells) < len(guest_cells):
        return None
    pools = pci.pools if pci is not None else ()
    wanted = pci.wanted if pci is not None else ()
    order = _ordered(cells, guest_cells, pools, wanted, pack)
    by_id = {cell.id: cell for cell in cells}
    for perm in itertools.permutations(order, len(guest_cells)):
        fitted = _fit_permutation(perm, guest_cells, ratios,
                                  isolate_emulator)
        if fitted is None:
            continue
        if wanted and pools and not pci_affinity.supported(
                pci, [f.host_id for f in fitted], by_id):
            continue
        return fitted
    return None


def forced(cells, guest_cells):
    """[FittedCell] placing each guest cell, in order, on the host cell
    with the most free memory it does not already use, with no checks:
    the usage of an instance that is on the host but no longer fits."""
    fitted = []
    taken = set()
    for guest in guest_cells:
        free = [c for c in cells if c.id not in taken] or list(cells)
        cell = max(free, key=lambda c: (c.avail_memory, -c.id))
        taken.add(cell.id)
        spare = sorted(cell.free_pcpus)[:len(guest.pcpuset)]
        pins = dict(zip(sorted(guest.pcpuset), spare, strict=False))
        size = guest.pagesize if guest.pagesize and guest.pagesize > 0 \
            else None
        fitted.append(FittedCell(guest, cell.id, size, pins, frozenset()))
    return fitted
