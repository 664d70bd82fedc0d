"""The NUMA cells the fake driver reports for a node.

A node's CPUs and RAM are split evenly among ``numa_nodes`` cells (the
first cells take the remainders). The [fake_driver] options shape them
as a libvirt host would report them (see nova_lite/conf/fake_driver.py):
``cpu_dedicated_set`` / ``cpu_shared_set`` (host CPUs for pinned and for
shared guest CPUs; neither: every CPU for both, as Nova's legacy
configuration), ``threads_per_core`` (thread siblings),
``huge_pages`` (page pools per cell) and ``numa_cells_per_socket``.
"""

from nova_lite.conf import CONF
from nova_lite import exception

SMALL_PAGE_KB = 4


def _error(option, text, reason):
    return exception.ConfigInvalid(
        reason='[fake_driver] %s "%s": %s' % (option, text, reason))


def parse_cpu_set(option, text):
    """The CPU ids of "0-3,^2,6", or None for an empty option."""
    if not text:
        return None
    wanted, unwanted = set(), set()
    for part in text.split(','):
        part = part.strip()
        if not part:
            continue
        target = unwanted if part.startswith('^') else wanted
        low, _sep, high = part.lstrip('^').partition('-')
        if not (low.isdigit() and (high.isdigit() or not high)):
            raise _error(option, text, 'not a CPU set such as "0-3,^2,6"')
        target.update(range(int(low), int(high or low) + 1))
    return wanted - unwanted


def parse_huge_pages(values):
    """[(size_kb, count)] of "SIZE_KB:COUNT" items."""
    pools = []
    for item in values:
        size, _sep, count = item.partition(':')
        if not (size.strip().isdigit() and count.strip().isdigit()
                and int(size) > SMALL_PAGE_KB):
            raise _error('huge_pages', item, 'expected SIZE_KB:COUNT with '
                         'a size above %d' % SMALL_PAGE_KB)
        pools.append((int(size), int(count)))
    return pools


def _cpu_sets():
    opts = CONF.fake_driver
    dedicated = parse_cpu_set('cpu_dedicated_set', opts.cpu_dedicated_set)
    shared = parse_cpu_set('cpu_shared_set', opts.cpu_shared_set)
    if dedicated and shared and dedicated & shared:
        raise _error('cpu_dedicated_set', opts.cpu_dedicated_set,
                     'overlaps cpu_shared_set')
    return dedicated, shared


def _pages(memory_mb, huge):
    huge_kb = sum(size * count for size, count in huge)
    if huge_kb > memory_mb * 1024:
        raise _error('huge_pages', ','.join('%d:%d' % p for p in huge),
                     'more than the %d MB of a cell' % memory_mb)
    small = (memory_mb * 1024 - huge_kb) // SMALL_PAGE_KB
    return [{'size_kb': SMALL_PAGE_KB, 'total': small, 'used': 0,
             'reserved': 0}] + [
        {'size_kb': size, 'total': count, 'used': 0, 'reserved': 0}
        for size, count in huge]


def _cell(index, cpus, memory_mb, sets, huge):
    opts = CONF.fake_driver
    dedicated, shared = sets
    threads = opts.threads_per_core
    cell = {'id': index, 'cpus': cpus, 'memory_mb': memory_mb,
            'pinned_cpus': [], 'cpu_usage': 0, 'memory_usage': 0,
            'siblings': [cpus[i:i + threads]
                         for i in range(0, len(cpus), threads)],
            'socket': index // opts.numa_cells_per_socket}
    if dedicated is not None or shared is not None:
        cell['pcpuset'] = [c for c in cpus if c in (dedicated or ())]
        cell['cpuset'] = [c for c in cpus if c in (shared or ())]
    if huge:
        cell['mempages'] = _pages(memory_mb, huge)
    return cell


def numa_cells(vcpus, memory_mb, count):
    """The reported cells of a node (no usage), or None for 0 cells.

    Raises ConfigInvalid for a malformed or impossible shape.
    """
    if not count:
        return None
    sets = _cpu_sets()
    huge = parse_huge_pages(CONF.fake_driver.huge_pages)
    cells, cpu = [], 0
    for index in range(count):
        ncpus = vcpus // count + (1 if index < vcpus % count else 0)
        memory = memory_mb // count + (1 if index < memory_mb % count else 0)
        cells.append(_cell(index, list(range(cpu, cpu + ncpus)), memory,
                           sets, huge))
        cpu += ncpus
    return cells
