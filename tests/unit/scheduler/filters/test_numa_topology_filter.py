"""NUMATopologyFilter: instance cells from the flavor or image against
host NUMA cells, with the allocation ratios and pinning."""

import pytest

from nova_lite.scheduler.filters import numa_topology_filter as numa
from nova_lite.scheduler.numa import request

from .. import fake_hosts


def _cell(cell_id, cpus, memory_mb, pinned=(), cpu_usage=0, memory_usage=0):
    return {'id': cell_id, 'cpus': list(cpus), 'memory_mb': memory_mb,
            'pinned_cpus': list(pinned), 'cpu_usage': cpu_usage,
            'memory_usage': memory_usage}


def _host(cells, cpu_ratio=1.0, ram_ratio=1.0):
    return fake_hosts.host(numa_topology=cells, cpu_ratio=cpu_ratio,
                           ram_ratio=ram_ratio)


def _two_cells(**kwargs):
    return [_cell(0, range(0, 4), 4096, **kwargs),
            _cell(1, range(4, 8), 4096, **kwargs)]


def _spec(specs=None, image=None, vcpus=4, memory_mb=2048):
    return fake_hosts.spec(extra_specs=specs, image=image, vcpus=vcpus,
                           memory_mb=memory_mb)


def _shape(spec):
    """([(guest CPUs, MB)] per cell, whether the CPUs are pinned)."""
    cells = request.guest_topology(spec)
    return ([(len(c.cpuset) + len(c.pcpuset), c.memory) for c in cells],
            all(c.pinned for c in cells))


def _passes(host, spec):
    return numa.NUMATopologyFilter().host_passes(host, spec)


def test_request_without_topology_passes_any_host():
    assert _passes(fake_hosts.host(), _spec())
    assert _passes(_host(_two_cells()), _spec())


def test_request_with_topology_needs_a_numa_host():
    flt = numa.NUMATopologyFilter()
    spec = _spec({'hw:numa_nodes': '1'})
    assert not flt.host_passes(fake_hosts.host(), spec)
    assert flt.rejection_reason(fake_hosts.host(), spec) == (
        'have no NUMA topology')


def test_cells_are_split_evenly_and_need_distinct_host_cells():
    assert _shape(_spec({'hw:numa_nodes': '2'})) == (
        [(2, 1024), (2, 1024)], False)
    assert _passes(_host(_two_cells()), _spec({'hw:numa_nodes': '2'}))
    flt = numa.NUMATopologyFilter()
    spec = _spec({'hw:numa_nodes': '4'})
    assert flt.rejection_reason(_host(_two_cells()), spec) == (
        'have fewer than 4 NUMA cells')


def test_a_cell_larger_than_any_host_cell_does_not_fit():
    # 6 VCPUs in one cell: each host cell has 4 CPUs, even overcommitted.
    spec = _spec({'hw:numa_nodes': '1'}, vcpus=6)
    flt = numa.NUMATopologyFilter()
    host = _host(_two_cells(), cpu_ratio=16.0)
    assert not flt.host_passes(host, spec)
    assert flt.rejection_reason(host, spec) == 'no fit for 1 NUMA cells'


@pytest.mark.parametrize('cpu_usage,cpu_ratio,expected', [
    (0, 1.0, True), (1, 1.0, False), (4, 2.0, True), (5, 2.0, False)])
def test_shared_cpus_use_the_cpu_allocation_ratio(cpu_usage, cpu_ratio,
                                                  expected):
    host = _host([_cell(0, range(4), 4096, cpu_usage=cpu_usage)],
                 cpu_ratio=cpu_ratio)
    assert _passes(host, _spec({'hw:numa_nodes': '1'})) is expected


@pytest.mark.parametrize('memory_usage,ram_ratio,expected', [
    (2048, 1.0, True), (2049, 1.0, False), (4000, 1.5, True)])
def test_memory_uses_the_ram_allocation_ratio(memory_usage, ram_ratio,
                                              expected):
    host = _host([_cell(0, range(4), 4096, memory_usage=memory_usage)],
                 ram_ratio=ram_ratio)
    assert _passes(host, _spec({'hw:numa_nodes': '1'})) is expected


def test_dedicated_cpus_need_unpinned_cpus_and_no_overcommit():
    spec = _spec({'hw:cpu_policy': 'dedicated'}, vcpus=2, memory_mb=1024)
    assert _shape(spec) == ([(2, 1024)], True)
    free = _host([_cell(0, range(4), 4096, pinned=[0, 1])], cpu_ratio=16.0)
    full = _host([_cell(0, range(4), 4096, pinned=[0, 1, 2])],
                 cpu_ratio=16.0)
    no_mem = _host([_cell(0, range(4), 4096, memory_usage=3500)],
                   ram_ratio=4.0)
    assert _passes(free, spec)
    assert not _passes(full, spec)
    assert not _passes(no_mem, spec)


def test_one_full_cell_is_avoided_by_matching():
    # Cell 0 is busy; a one-cell instance fits cell 1.
    cells = [_cell(0, range(4), 4096, cpu_usage=4),
             _cell(1, range(4, 8), 4096)]
    assert _passes(_host(cells), _spec({'hw:numa_nodes': '1'}))
    # Two cells: the busy one cannot take either half.
    assert not _passes(_host(cells), _spec({'hw:numa_nodes': '2'}))


def test_explicit_cells():
    spec = _spec({'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0-2',
                  'hw:numa_cpus.1': '3', 'hw:numa_mem.0': '1536',
                  'hw:numa_mem.1': '512'})
    assert _shape(spec)[0] == [(3, 1536), (1, 512)]
    cells = [_cell(0, range(2), 4096), _cell(1, range(2, 6), 4096)]
    # The 3-CPU cell needs host cell 1, the 1-CPU cell takes cell 0.
    assert _passes(_host(cells), spec)


def test_image_properties_when_the_flavor_is_silent():
    spec = _spec(image={'hw_numa_nodes': 2, 'hw_cpu_policy': 'dedicated'})
    assert _shape(spec) == ([(2, 1024), (2, 1024)], True)
    # As in Nova, an image may not set a node count the flavor sets.
    both = _spec({'hw:numa_nodes': '1'}, image={'hw_numa_nodes': 2})
    assert numa.NUMATopologyFilter().rejection_reason(
        _host(_two_cells()), both).startswith('bad NUMA request: ')


@pytest.mark.parametrize('specs', [
    {'hw:numa_nodes': '3'},                  # 4 VCPUs do not split in 3
    {'hw:numa_nodes': '0'},
    {'hw:numa_nodes': 'two'},
    {'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0-2', 'hw:numa_mem.0': '10'},
])
def test_bad_requests_reject_every_host_saying_why(specs):
    flt = numa.NUMATopologyFilter()
    host = _host(_two_cells())
    assert not flt.host_passes(host, _spec(specs))
    assert flt.rejection_reason(host, _spec(specs)).startswith(
        'bad NUMA request: ')


def test_parse_cpu_spec():
    assert request.parse_cpu_spec('0-3,^2,6') == {0, 1, 3, 6}
    assert request.parse_cpu_spec('5') == {5}


def test_summary_counts_the_reasons_of_each_host():
    flt = numa.NUMATopologyFilter()
    spec = _spec({'hw:numa_nodes': '2'})
    hosts = [fake_hosts.host(), _host([_cell(0, range(4), 4096)]),
             _host(_two_cells(cpu_usage=4)), _host(_two_cells(cpu_usage=4))]
    assert flt.summarize_rejections(hosts, spec) == (
        '2 no fit for 2 NUMA cells, 1 have no NUMA topology, '
        '1 have fewer than 2 NUMA cells')
    assert flt.summarize_rejections(hosts, _spec(
        {'hw:numa_nodes': 'x'})).startswith('4 bad NUMA request')
