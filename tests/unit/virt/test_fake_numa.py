"""The NUMA cells the fake driver reports: CPU sets, threads, pages."""

import pytest

from nova_lite import exception
from nova_lite.virt import fake
from nova_lite.virt import fake_numa


def test_legacy_cells_serve_both_uses_with_single_thread_cores():
    cells = fake_numa.numa_cells(4, 2048, 2)
    assert [c['cpus'] for c in cells] == [[0, 1], [2, 3]]
    assert 'pcpuset' not in cells[0] and 'mempages' not in cells[0]
    assert cells[1]['siblings'] == [[2], [3]]
    assert [c['socket'] for c in cells] == [0, 1]


def test_dedicated_and_shared_sets_threads_and_sockets(conf):
    conf.config(group='fake_driver', cpu_dedicated_set='2-7',
                cpu_shared_set='0-1', threads_per_core=2,
                numa_cells_per_socket=2)
    cells = fake_numa.numa_cells(8, 4096, 2)
    assert (cells[0]['cpuset'], cells[0]['pcpuset']) == ([0, 1], [2, 3])
    assert (cells[1]['cpuset'], cells[1]['pcpuset']) == ([], [4, 5, 6, 7])
    assert cells[1]['siblings'] == [[4, 5], [6, 7]]
    assert [c['socket'] for c in cells] == [0, 0]


def test_only_a_dedicated_set_leaves_no_shared_cpus(conf):
    conf.config(group='fake_driver', cpu_dedicated_set='0-3')
    cell, = fake_numa.numa_cells(4, 1024, 1)
    assert (cell['cpuset'], cell['pcpuset']) == ([], [0, 1, 2, 3])


def test_huge_pages_leave_the_rest_in_small_pages(conf):
    conf.config(group='fake_driver', huge_pages=['2048:256'])
    cell, = fake_numa.numa_cells(2, 1024, 1)
    assert [(p['size_kb'], p['total']) for p in cell['mempages']] == [
        (4, 131072), (2048, 256)]


@pytest.mark.parametrize('options', [
    {'cpu_dedicated_set': '0-3', 'cpu_shared_set': '3-4'},
    {'cpu_dedicated_set': 'two'},
    {'huge_pages': ['2M:10']},
    {'huge_pages': ['1048576:8'], 'memory_mb': 4096},
])
def test_bad_shapes_stop_the_compute(conf, options):
    conf.config(group='fake_driver', numa_nodes=1, **options)
    with pytest.raises(exception.ConfigInvalid):
        fake.build_nodes('host1')
