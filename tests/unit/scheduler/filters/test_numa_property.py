"""NUMATopologyFilter against expectations derived from Nova's rules.

Random hosts (one to three cells, shared and dedicated sets together or
apart, cores of one or two threads, small and huge page pools, usage)
and random requests (cells, CPU and thread policies, page sizes). The
expectation is worked out here in closed form, cell by cell, over every
way to give guest cells distinct host cells: a restatement of the rules
that does not follow the filter's packing algorithm.
"""

import itertools
import random

from nova_lite.scheduler.filters import numa_topology_filter as numa

from .. import fake_hosts

SMALL_KB, HUGE_KB = 4, 2048
PAGE_SIZES = [None, None, None, 'small', 'large', 'any', '2048', '2MB',
              '1GB']


def random_cell(rng, cell_id, first_cpu):
    threads = rng.choice([1, 2])
    cores = rng.randint(1, 4)
    cpus = list(range(first_cpu, first_cpu + threads * cores))
    siblings = [cpus[i:i + threads] for i in range(0, len(cpus), threads)]
    layout = rng.choice(['legacy', 'split', 'dedicated', 'shared'])
    if layout == 'legacy':
        cpuset = pcpuset = cpus
    elif layout == 'split':
        cut = threads * rng.randint(0, cores)
        cpuset, pcpuset = cpus[:cut], cpus[cut:]
    elif layout == 'dedicated':
        cpuset, pcpuset = [], cpus
    else:
        cpuset, pcpuset = cpus, []
    memory = rng.choice([1024, 2048, 4096])
    cell = {'id': cell_id, 'cpuset': cpuset, 'pcpuset': pcpuset,
            'memory_mb': memory, 'socket': 0,
            'pinned_cpus': sorted(rng.sample(
                pcpuset, rng.randint(0, len(pcpuset) // 2))),
            'cpu_usage': rng.randint(0, 2 * len(cpuset)),
            'memory_usage': rng.choice([0, 0, 0, memory // 4,
                                        memory // 2, memory])}
    if rng.random() < 0.9:
        cell['siblings'] = siblings
    if rng.random() < 0.5:
        huge = rng.choice([0, 1, 2, 3]) * memory // 4 // 2
        small = (memory * 1024 - huge * HUGE_KB) // SMALL_KB
        cell['mempages'] = [
            {'size_kb': SMALL_KB, 'total': small, 'reserved': 0,
             'used': rng.randint(0, small // 2)},
            {'size_kb': HUGE_KB, 'total': huge, 'reserved': 0,
             'used': rng.randint(0, huge // 2)}]
    return cell, first_cpu + len(cpus)


def random_host(rng):
    cells, cpu = [], 0
    for cell_id in range(rng.randint(1, 3)):
        cell, cpu = random_cell(rng, cell_id, cpu)
        cells.append(cell)
    return fake_hosts.host(numa_topology=cells,
                           cpu_ratio=rng.choice([1.0, 2.0, 16.0]),
                           ram_ratio=rng.choice([1.0, 1.5]))


def random_request(rng):
    vcpus = rng.choice([1, 2, 3, 4])
    nodes = rng.choice([None, 1, 2])
    if nodes == 2 and vcpus % 2:
        vcpus += 1
    memory = rng.choice([256, 512, 1024]) * (nodes or 1)
    specs = {}
    if nodes:
        specs['hw:numa_nodes'] = str(nodes)
    policy = rng.choice([None, 'shared', 'dedicated', 'mixed'])
    if policy == 'mixed' and vcpus < 2:
        policy = 'dedicated'
    if policy:
        specs['hw:cpu_policy'] = policy
    if policy == 'mixed':
        specs['hw:cpu_dedicated_mask'] = '0-%d' % rng.randint(
            0, vcpus - 2)
    if policy == 'dedicated':
        threads = rng.choice([None, 'prefer', 'isolate', 'require'])
        if threads:
            specs['hw:cpu_thread_policy'] = threads
    size = rng.choice(PAGE_SIZES)
    if size:
        specs['hw:mem_page_size'] = size
    return fake_hosts.spec(extra_specs=specs, vcpus=vcpus,
                           memory_mb=memory), specs, vcpus, memory


# -- The expectation ----------------------------------------------------

def guest_cells(specs, vcpus, memory):
    """[(shared guest CPUs, pinned guest CPUs, MB)], or None."""
    policy = specs.get('hw:cpu_policy')
    nodes = int(specs.get('hw:numa_nodes', 0))
    if not (nodes or specs.get('hw:mem_page_size')
            or policy in ('dedicated', 'mixed')):
        return None
    nodes = nodes or 1
    if policy == 'dedicated':
        pinned = set(range(vcpus))
    elif policy == 'mixed':
        top = int(specs['hw:cpu_dedicated_mask'].split('-')[1])
        pinned = set(range(top + 1))
    else:
        pinned = set()
    per = vcpus // nodes
    result = []
    for node in range(nodes):
        cpus = set(range(node * per, (node + 1) * per))
        result.append((len(cpus - pinned), len(cpus & pinned),
                       memory // nodes))
    return result


def _page_sizes(wanted, pools):
    sizes = sorted((p['size_kb'] for p in pools), reverse=True)
    named = {'small': sizes[-1:], 'large': sizes[:-1], 'any': sizes}
    if wanted in named:
        return named[wanted]
    return [{'2048': 2048, '2MB': 2048, '1GB': 1048576}[wanted]]


def memory_ok(cell, wanted, memory_mb):
    pools = {p['size_kb']: p for p in cell.get('mempages', ())}
    kib = memory_mb * 1024
    if wanted:
        for size in _page_sizes(wanted, cell.get('mempages', ())):
            pool = pools.get(size)
            if pool and kib % size == 0 and kib <= size * (
                    pool['total'] - pool['used'] - pool['reserved']):
                return True
        return False
    if pools:
        small = pools[min(pools)]
        return kib <= small['total'] * small['size_kb']
    return memory_mb <= cell['memory_mb']


def pinning_ok(cell, count, thread_policy):
    if count == 0:
        return False
    free = set(cell['pcpuset']) - set(cell['pinned_cpus'])
    cores = cell.get('siblings') or [[c] for c in sorted(
        set(cell['cpuset']) | set(cell['pcpuset']))]
    per_core = max(len(core) for core in cores)
    free_per_core = [len(set(core) & free) for core in cores]
    if thread_policy == 'isolate':
        if per_core > 1 and cell['cpuset'] != cell['pcpuset']:
            return False
        return free_per_core.count(per_core) >= count
    if thread_policy == 'require':
        return per_core > 1 and 2 * sum(
            1 for n in free_per_core if n >= 2) >= count
    return len(free) >= count


def cell_ok(cell, guest, specs, ratios):
    shared, pinned, memory_mb = guest
    if not memory_ok(cell, specs.get('hw:mem_page_size'), memory_mb):
        return False
    free_memory = cell['memory_mb'] - cell['memory_usage']
    if specs.get('hw:cpu_policy') in ('dedicated', 'mixed'):
        free = set(cell['pcpuset']) - set(cell['pinned_cpus'])
        return (pinned <= len(free) and memory_mb <= free_memory
                and pinning_ok(cell, pinned,
                               specs.get('hw:cpu_thread_policy')))
    cpu_ratio, ram_ratio = ratios
    return (shared <= len(cell['cpuset'])
            and cell['cpu_usage'] + shared <= len(cell['cpuset']) * cpu_ratio
            and cell['memory_usage'] + memory_mb
            <= cell['memory_mb'] * ram_ratio)


def expected(host, specs, vcpus, memory):
    guests = guest_cells(specs, vcpus, memory)
    if guests is None:
        return True
    cells = host.numa_topology
    if (specs.get('hw:cpu_thread_policy') == 'require'
            and not any(c.get('siblings') for c in cells)):
        return False
    ratios = (host.cpu_allocation_ratio, host.ram_allocation_ratio)
    return any(all(cell_ok(cell, guest, specs, ratios)
                   for cell, guest in zip(perm, guests, strict=False))
               for perm in itertools.permutations(cells, len(guests)))


def test_filter_agrees_with_the_rules_on_random_cases():
    rng = random.Random(11)
    flt = numa.NUMATopologyFilter()
    outcomes = {True: 0, False: 0}
    for case in range(2500):
        host = random_host(rng)
        spec_obj, specs, vcpus, memory = random_request(rng)
        want = expected(host, specs, vcpus, memory)
        got = flt.host_passes(host, spec_obj)
        assert got is want, (case, host.numa_topology, specs, vcpus,
                             memory, flt.rejection_reason(host, spec_obj))
        if guest_cells(specs, vcpus, memory) is not None:
            outcomes[got] += 1
    # Requests with a topology pass and fail often enough to mean
    # something.
    assert min(outcomes.values()) > 350, outcomes
