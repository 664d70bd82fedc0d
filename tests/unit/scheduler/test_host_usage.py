"""NUMA cell and PCI pool usage worked out from the instances on a node."""

import json

from nova_lite import objects
from nova_lite.scheduler import host_state
from nova_lite.scheduler import host_usage

CELLS = [{'id': 0, 'cpus': [0, 1, 2, 3], 'memory_mb': 4096,
          'pinned_cpus': [], 'cpu_usage': 0, 'memory_usage': 0},
         {'id': 1, 'cpus': [4, 5, 6, 7], 'memory_mb': 8192,
          'pinned_cpus': [], 'cpu_usage': 0, 'memory_usage': 0}]
POOLS = [{'vendor_id': '8086', 'product_id': '1520', 'count': 2,
          'numa_node': 0, 'dev_type': 'type-VF'},
         {'vendor_id': '8086', 'product_id': '1520', 'count': 1,
          'numa_node': 1, 'dev_type': 'type-VF'},
         {'vendor_id': '10de', 'product_id': '1eb8', 'count': 4,
          'numa_node': None, 'dev_type': 'type-PCI'}]
ALIAS = json.dumps({'name': 'vf', 'vendor_id': '8086',
                    'product_id': '1520', 'device_type': 'type-VF'})


def _instance(uuid, vcpus=2, memory_mb=1024, image=None, **extra_specs):
    flavor = objects.Flavor(flavorid='f', name='f', vcpus=vcpus,
                            memory_mb=memory_mb, root_gb=1,
                            extra_specs=extra_specs)
    return host_state.HostInstance(uuid, 'p', 'active', None, flavor,
                                   image or {}, frozenset())


def _usage(instances, cpu_ratio=1.0, ram_ratio=1.0):
    return host_usage.numa_usage(CELLS, instances, cpu_ratio, ram_ratio)


def test_instances_without_topology_use_no_cell():
    cells = _usage([_instance('a'), _instance('b', vcpus=8)])
    assert [(c['cpu_usage'], c['memory_usage']) for c in cells] == [
        (0, 0), (0, 0)]
    # The reported cells are never changed.
    assert CELLS[0]['cpu_usage'] == 0


def test_one_cell_instance_goes_to_the_cell_with_most_free_memory():
    cells = _usage([_instance('a', **{'hw:numa_nodes': '1'})])
    assert [(c['cpu_usage'], c['memory_usage']) for c in cells] == [
        (0, 0), (2, 1024)]
    assert cells[1]['pinned_cpus'] == []


def test_dedicated_cpus_are_pinned_lowest_first():
    cells = _usage([_instance('a', vcpus=2, **{'hw:cpu_policy':
                                                'dedicated'}),
                    _instance('b', vcpus=1, memory_mb=7000,
                              **{'hw:cpu_policy': 'dedicated'})])
    # a (1024 MB) took cell 1 (8192 free); then b (7000 MB) fits only
    # cell 1 (7168 free there, 4096 in cell 0).
    assert cells[1]['pinned_cpus'] == [4, 5, 6]
    assert cells[1]['memory_usage'] == 8024
    assert cells[0]['pinned_cpus'] == []


def test_multi_cell_instance_takes_distinct_cells():
    cells = _usage([_instance('a', vcpus=4, memory_mb=2048,
                              **{'hw:numa_nodes': '2'})])
    assert [(c['cpu_usage'], c['memory_usage']) for c in cells] == [
        (2, 1024), (2, 1024)]


def test_image_properties_ask_for_a_topology_too():
    cells = _usage([_instance('a', image={'hw_numa_nodes': 1})])
    assert sum(c['memory_usage'] for c in cells) == 1024


def test_instance_fitting_nowhere_is_still_counted():
    cells = _usage([_instance('a', vcpus=1, memory_mb=9000,
                              **{'hw:numa_nodes': '1'})])
    assert cells[1]['memory_usage'] == 9000


def test_pci_devices_in_use_are_taken_from_matching_pools(conf):
    conf.config(group='pci', alias=[ALIAS])
    pools = host_usage.free_pci_pools(POOLS, [
        _instance('a', **{'pci_passthrough:alias': 'vf:2'}),
        _instance('b', **{'pci_passthrough:alias': 'vf:2'}),
        _instance('c', **{'pci_passthrough:alias': 'gpu:1'}),
        _instance('d')])
    assert [p['count'] for p in pools] == [0, 0, 4]
    assert POOLS[0]['count'] == 2


def test_bad_alias_leaves_pools_as_reported(conf):
    conf.config(group='pci', alias=['{not json'])
    pools = host_usage.free_pci_pools(POOLS, [
        _instance('a', **{'pci_passthrough:alias': 'vf:1'})])
    assert [p['count'] for p in pools] == [2, 1, 4]


def test_an_instance_is_read_once_per_flavor_object(monkeypatch):
    read = []
    real = host_usage._numa_request

    def counting(instance):
        read.append(instance.uuid)
        return real(instance)

    monkeypatch.setattr(host_usage, '_numa_request', counting)
    host_usage._READINGS.clear()
    first = _instance('a', **{'hw:numa_nodes': '1'})
    same = host_state.HostInstance('b', 'p', 'active', None, first.flavor,
                                   first.image_properties, frozenset())
    alike = _instance('c', **{'hw:numa_nodes': '1'})
    usage = _usage([first, same, alike])
    # The same flavor object is read once; an equal one again.
    assert read == ['a', 'c']
    assert sum(cell['memory_usage'] for cell in usage) == 3072
