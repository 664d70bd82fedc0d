"""The guest NUMA topology a request asks for.

A flavor (extra specs ``hw:*``) or its image (properties ``hw_*``) ask
for a topology with any of: ``hw:numa_nodes``, ``hw:cpu_policy``
dedicated or mixed, ``hw:mem_page_size``, ``hw:pmem``. Then the guest gets
``numa_nodes`` cells (1 by default), its VCPUs and RAM split evenly, or
per cell by ``hw:numa_cpus.N`` / ``hw:numa_mem.N``. With ``dedicated``
every guest CPU is pinned; with ``mixed`` the CPUs of
``hw:cpu_dedicated_mask`` (or of the realtime mask) are. Conflicts
between flavor and image, and settings that cannot go together, raise
ValueError (Nova's API refuses them before a scheduler sees them).
"""

import dataclasses

from nova_lite.scheduler.numa import pages
from nova_lite.scheduler import utils

SHARED, DEDICATED, MIXED = 'shared', 'dedicated', 'mixed'
CPU_POLICIES = (SHARED, DEDICATED, MIXED)
PREFER, ISOLATE, REQUIRE = 'prefer', 'isolate', 'require'
THREAD_POLICIES = (PREFER, ISOLATE, REQUIRE)
_MAX_CELLS = 8


@dataclasses.dataclass(frozen=True)
class GuestCell:
    """One guest NUMA cell: shared guest CPUs (``cpuset``), dedicated
    ones (``pcpuset``), memory in MB and the page size asked for (None,
    or a pages.SMALL/LARGE/ANY marker or a size in KiB)."""
    index: int
    cpuset: frozenset
    pcpuset: frozenset
    memory: int
    pagesize: object = None
    cpu_policy: object = None
    thread_policy: object = None

    @property
    def pinned(self):
        return self.cpu_policy in (DEDICATED, MIXED)


def parse_cpu_spec(text):
    """The CPU ids of "0-3,^2,6" ({0, 1, 3, 6}); ValueError if malformed."""
    wanted, unwanted = set(), set()
    for part in str(text).split(','):
        part = part.strip()
        if not part:
            continue
        target = unwanted if part.startswith('^') else wanted
        low, _sep, high = part.lstrip('^').partition('-')
        low, high = int(low), int(high or low)
        if low > high:
            raise ValueError('bad CPU range %r' % part)
        target.update(range(low, high + 1))
    return wanted - unwanted


def _both(specs, spec_obj, name):
    """(flavor value of hw:<name>, image value of hw_<name>)."""
    return (specs.get('hw:' + name),
            utils.image_prop(spec_obj, 'hw_' + name))


def cpu_policy(specs, spec_obj):
    """The CPU policy (None when neither flavor nor image sets one)."""
    flavor, image = _both(specs, spec_obj, 'cpu_policy')
    for source, value in (('flavor', flavor), ('image', image)):
        if value and value not in CPU_POLICIES:
            raise ValueError('%s CPU policy %s is not one of %s'
                             % (source, value, ', '.join(CPU_POLICIES)))
    if flavor == DEDICATED:
        return flavor
    if flavor == MIXED and image == DEDICATED or (
            flavor == SHARED and image in (DEDICATED, MIXED)):
        raise ValueError('the image CPU policy %s overrides the flavor '
                         '%s' % (image, flavor))
    return flavor or image or None


def thread_policy(specs, spec_obj):
    """The CPU thread policy; an image may not contradict a flavor's
    isolate or require."""
    flavor, image = _both(specs, spec_obj, 'cpu_thread_policy')
    for source, value in (('flavor', flavor), ('image', image)):
        if value and value not in THREAD_POLICIES:
            raise ValueError('%s CPU thread policy %s is not one of %s'
                             % (source, value, ', '.join(THREAD_POLICIES)))
    if flavor in (None, PREFER):
        return flavor or image or None
    if image and image != flavor:
        raise ValueError('the image CPU thread policy %s conflicts with '
                         'the flavor %s' % (image, flavor))
    return flavor


def _mask(text, vcpus):
    if str(text).strip().startswith('^'):
        return parse_cpu_spec('0-%d,%s' % (vcpus - 1, text))
    return parse_cpu_spec(text)


def dedicated_mask(specs, vcpus):
    """The guest CPUs ``hw:cpu_dedicated_mask`` pins, or None."""
    text = specs.get('hw:cpu_dedicated_mask')
    if not text:
        return None
    pcpus = _mask(text, vcpus)
    every = set(range(vcpus))
    if not pcpus or not every - pcpus or not pcpus <= every:
        raise ValueError('hw:cpu_dedicated_mask must name some, not all, '
                         'of the flavor\'s CPUs')
    return pcpus


def realtime_mask(specs, spec_obj, vcpus):
    """The realtime guest CPUs (``hw:cpu_realtime`` true), or None."""
    if str(specs.get('hw:cpu_realtime', '')).lower() not in (
            '1', 'true', 'yes', 'on', 'y', 't'):
        return None
    flavor, image = _both(specs, spec_obj, 'cpu_realtime_mask')
    text = image or flavor
    rt = _mask(text, vcpus) if text else set(range(vcpus))
    every = set(range(vcpus))
    if not rt or not rt <= every or (
            rt == every and not specs.get('hw:emulator_threads_policy')):
        raise ValueError('bad realtime CPU mask')
    return rt


def _node_count(specs, spec_obj):
    flavor, image = _both(specs, spec_obj, 'numa_nodes')
    if flavor and image:
        raise ValueError('the image may not set hw_numa_nodes when the '
                         'flavor sets hw:numa_nodes')
    nodes = flavor or image
    if nodes is None:
        return None
    if not str(nodes).strip().isdigit() or int(nodes) < 1:
        raise ValueError('hw:numa_nodes must be a whole number of at '
                         'least 1, not %r' % (nodes,))
    return int(nodes)


def _per_node(specs, key, parse):
    values = []
    for index in range(_MAX_CELLS):
        text = specs.get('%s.%d' % (key, index))
        if text is None:
            break
        values.append(parse(text))
    return values or None


def _auto_cells(nodes, vcpus, memory_mb):
    if vcpus % nodes or memory_mb % nodes:
        raise ValueError('%d VCPU and %d MB do not split evenly into %d '
                         'cells' % (vcpus, memory_mb, nodes))
    per_cpu, per_mb = vcpus // nodes, memory_mb // nodes
    return [(set(range(i * per_cpu, (i + 1) * per_cpu)), per_mb)
            for i in range(nodes)]


def _manual_cells(nodes, vcpus, memory_mb, cpu_list, mem_list):
    if len(cpu_list) != nodes or len(mem_list) != nodes:
        raise ValueError('hw:numa_cpus.N and hw:numa_mem.N must be given '
                         'for every one of the %d cells' % nodes)
    left = set(range(vcpus))
    for cpus in cpu_list:
        if not cpus <= set(range(vcpus)):
            raise ValueError('hw:numa_cpus names CPUs above %d'
                             % (vcpus - 1))
        if not cpus <= left:
            raise ValueError('hw:numa_cpus names a CPU twice')
        left -= cpus
    if left:
        raise ValueError('CPUs %s are in no cell' % sorted(left))
    if sum(mem_list) != memory_mb:
        raise ValueError('hw:numa_mem adds up to %d MB, not %d'
                         % (sum(mem_list), memory_mb))
    return list(zip(cpu_list, mem_list, strict=True))


def _pinned_cpus(policy, specs, spec_obj, threads, vcpus):
    """The guest CPUs to pin, after Nova's consistency checks."""
    mask = dedicated_mask(specs, vcpus)
    realtime = realtime_mask(specs, spec_obj, vcpus)
    isolate_emulator = specs.get('hw:emulator_threads_policy') == 'isolate'
    if policy in (None, SHARED):
        if threads or isolate_emulator or mask or realtime:
            raise ValueError('thread policies, dedicated or realtime masks '
                             'and isolated emulator threads need '
                             'hw:cpu_policy dedicated or mixed')
        return set()
    if policy == DEDICATED:
        if mask:
            raise ValueError('hw:cpu_dedicated_mask needs hw:cpu_policy '
                             'mixed')
        return set(range(vcpus))
    if bool(mask) == bool(realtime):
        raise ValueError('hw:cpu_policy mixed needs exactly one of '
                         'hw:cpu_dedicated_mask and a realtime mask')
    return set(mask or realtime)


def _explicit_resources(specs, policy, threads):
    """(policy, thread policy) once ``resources*:PCPU`` / ``VCPU`` and
    ``trait*:HW_CPU_HYPERTHREADING`` are taken into account."""
    asked = {'VCPU': False, 'PCPU': False}
    hyperthreading = None
    for key, value in specs.items():
        prefix, _sep, name = key.partition(':')
        if prefix.startswith('resources') and name in asked:
            asked[name] = True
        elif (prefix.startswith('trait')
              and name == 'HW_CPU_HYPERTHREADING'):
            hyperthreading = value
    if policy and (asked['VCPU'] or asked['PCPU']):
        raise ValueError('resources:VCPU or resources:PCPU cannot go with '
                         'hw:cpu_policy')
    if asked['VCPU'] and asked['PCPU']:
        raise ValueError('resources:VCPU and resources:PCPU exclude each '
                         'other')
    if asked['PCPU']:
        policy = DEDICATED
    elif asked['VCPU']:
        policy = SHARED
    if hyperthreading and threads:
        raise ValueError('trait:HW_CPU_HYPERTHREADING cannot go with '
                         'hw:cpu_thread_policy')
    threads = {'forbidden': ISOLATE, 'required': REQUIRE}.get(
        hyperthreading, threads)
    return policy, threads


def guest_topology(spec_obj):
    """[GuestCell] the request asks for, or None (no NUMA topology)."""
    specs = utils.extra_specs(spec_obj)
    flavor = spec_obj.flavor
    vcpus, memory_mb = flavor.vcpus, flavor.memory_mb
    policy, threads = _explicit_resources(
        specs, cpu_policy(specs, spec_obj), thread_policy(specs, spec_obj))
    pcpus = _pinned_cpus(policy, specs, spec_obj, threads, vcpus)
    nodes = _node_count(specs, spec_obj)
    pagesize = pages.requested_size(
        *_both(specs, spec_obj, 'mem_page_size'))
    pmem = [label for label in str(specs.get('hw:pmem') or '').split(',')
            if label.strip()]
    if not (nodes or pagesize or pmem or policy in (DEDICATED, MIXED)):
        return None
    nodes = nodes or 1
    cpu_list = _per_node(specs, 'hw:numa_cpus', parse_cpu_spec)
    mem_list = _per_node(specs, 'hw:numa_mem', int)
    if cpu_list is None and mem_list is None:
        layout = _auto_cells(nodes, vcpus, memory_mb)
    elif cpu_list is None or mem_list is None:
        raise ValueError('hw:numa_cpus.N and hw:numa_mem.N go together')
    else:
        layout = _manual_cells(nodes, vcpus, memory_mb, cpu_list, mem_list)
    return [GuestCell(i, frozenset(cpus - pcpus), frozenset(cpus & pcpus),
                      mem, pagesize, policy, threads)
            for i, (cpus, mem) in enumerate(layout)]


def emulator_threads_isolated(spec_obj):
    """Whether the guest wants a host CPU of its own for its emulator."""
    specs = utils.extra_specs(spec_obj)
    return specs.get('hw:emulator_threads_policy') == 'isolate'
