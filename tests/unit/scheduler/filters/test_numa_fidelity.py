"""Issue 11 case 8: NUMATopologyFilter decides as Nova's does.

One test per rule, each with the smallest host and request that shows
it, and Nova's answer (from nova/virt/hardware.py and
numa_topology_filter.py, read, not imported).
"""

import json

import pytest

from nova_lite import objects
from nova_lite.scheduler.filters import numa_topology_filter as numa
from nova_lite.scheduler import host_state
from nova_lite.scheduler import host_usage

from .. import fake_hosts

KIB_4K, KIB_2M, KIB_1G = 4, 2048, 1048576


def cell(cell_id=0, cpuset=(), pcpuset=(), memory_mb=4096, siblings=None,
         mempages=None, socket=None, **usage):
    """A host cell in the compute's report format, with usage."""
    result = {'id': cell_id, 'cpuset': list(cpuset),
              'pcpuset': list(pcpuset), 'memory_mb': memory_mb,
              'socket': socket, 'cpu_usage': usage.get('cpu_usage', 0),
              'memory_usage': usage.get('memory_usage', 0),
              'pinned_cpus': list(usage.get('pinned', ()))}
    if siblings is not None:
        result['siblings'] = [list(s) for s in siblings]
    if mempages is not None:
        result['mempages'] = [
            {'size_kb': size, 'total': total, 'used': used, 'reserved': 0}
            for size, total, used in mempages]
    return result


def legacy(cell_id, cpus, **kwargs):
    """A cell whose CPUs serve shared and pinned guests (vcpu_pin_set)."""
    return cell(cell_id, cpus, cpus, **kwargs)


def host(cells, cpu_ratio=1.0, ram_ratio=1.0, pci_stats=()):
    return fake_hosts.host(numa_topology=cells, cpu_ratio=cpu_ratio,
                           ram_ratio=ram_ratio, pci_stats=list(pci_stats))


def spec(specs=None, image=None, vcpus=2, memory_mb=1024):
    return fake_hosts.spec(extra_specs=specs, image=image, vcpus=vcpus,
                           memory_mb=memory_mb)


def reason(host_state_, spec_obj):
    return numa.NUMATopologyFilter().rejection_reason(host_state_, spec_obj)


def passes(host_state_, spec_obj):
    result = numa.NUMATopologyFilter().host_passes(host_state_, spec_obj)
    assert result is (reason(host_state_, spec_obj) is None)
    return result


PINNED = {'hw:cpu_policy': 'dedicated'}


# -- Page sizes ---------------------------------------------------------

def test_large_pages_need_a_huge_page_pool_with_enough_free_pages():
    only_small = [cell(0, range(4), mempages=[(KIB_4K, 1048576, 0)])]
    huge = [cell(0, range(4), mempages=[(KIB_4K, 524288, 0),
                                        (KIB_2M, 512, 0)])]
    busy = [cell(0, range(4), mempages=[(KIB_4K, 524288, 0),
                                        (KIB_2M, 512, 100)])]
    large = spec({'hw:mem_page_size': 'large'}, memory_mb=1024)
    assert not passes(host(only_small), large)
    assert passes(host(huge), large)
    # 412 free 2 MiB pages hold 824 MB, not 1024.
    assert not passes(host(busy), large)


def test_small_pages_count_free_small_pages():
    tight = [cell(0, range(4), mempages=[(KIB_4K, 262144, 262000),
                                         (KIB_2M, 1024, 0)])]
    assert not passes(host(tight), spec({'hw:mem_page_size': 'small'}))
    assert passes(host(tight), spec({'hw:mem_page_size': 'large'}))


def test_an_explicit_size_a_cell_lacks_skips_that_cell_only():
    cells = [cell(0, range(4), mempages=[(KIB_4K, 1048576, 0)]),
             cell(1, range(4, 8), mempages=[(KIB_4K, 524288, 0),
                                            (KIB_1G, 2, 0)])]
    assert passes(host(cells), spec({'hw:mem_page_size': '1GB'}))
    assert passes(host(cells), spec({'hw:mem_page_size': '1048576'}))
    assert not passes(host(cells[:1]), spec({'hw:mem_page_size': '1GB'}))
    # 1 GiB pages cannot hold 1536 MB exactly.
    assert not passes(host(cells), spec({'hw:mem_page_size': '1GB'},
                                        memory_mb=1536))


def test_without_a_page_size_all_small_pages_bound_memory():
    # Nova checks the smallest pool's total (not free) pages: 1 GiB of
    # 4 KiB pages cannot hold 2048 MB, whatever memory_mb says.
    cells = [cell(0, range(4), memory_mb=8192,
                  mempages=[(KIB_4K, 262144, 262144), (KIB_2M, 3584, 0)])]
    assert passes(host(cells), spec({'hw:numa_nodes': '1'},
                                    memory_mb=1024))
    assert not passes(host(cells), spec({'hw:numa_nodes': '1'},
                                        memory_mb=2048))


def test_image_page_size_narrows_large_and_is_refused_alone():
    cells = [cell(0, range(4), mempages=[(KIB_4K, 524288, 0),
                                         (KIB_2M, 512, 0)])]
    assert not passes(host(cells), spec({'hw:mem_page_size': 'large'},
                                        image={'hw_mem_page_size': '1GB'}))
    assert passes(host(cells), spec({'hw:mem_page_size': 'any'},
                                    image={'hw_mem_page_size': '2MB'}))
    assert reason(host(cells), spec(image={'hw_mem_page_size': 'large'})
                  ).startswith('bad NUMA request')
    assert reason(host(cells), spec({'hw:mem_page_size': 'small'},
                                    image={'hw_mem_page_size': 'large'})
                  ).startswith('bad NUMA request')


def test_a_page_size_alone_asks_for_a_topology():
    assert reason(fake_hosts.host(), spec({'hw:mem_page_size': 'any'})) == (
        'have no NUMA topology')


# -- Shared and dedicated CPU sets --------------------------------------

def test_shared_and_dedicated_guests_use_their_own_host_sets():
    split = [cell(0, cpuset=[0, 1], pcpuset=[2, 3])]
    assert passes(host(split), spec({'hw:numa_nodes': '1'}, vcpus=2))
    assert not passes(host(split), spec({'hw:numa_nodes': '1'}, vcpus=3))
    assert passes(host(split), spec(PINNED, vcpus=2))
    assert not passes(host(split), spec(PINNED, vcpus=3))
    no_pcpus = [cell(0, cpuset=[0, 1, 2, 3])]
    assert not passes(host(no_pcpus), spec(PINNED, vcpus=1))


def test_pinned_guests_never_overcommit_cpus_or_memory():
    cells = [legacy(0, range(4), pinned=[0, 1, 2], memory_usage=3500)]
    assert not passes(host(cells, cpu_ratio=16, ram_ratio=16),
                      spec(PINNED, vcpus=2, memory_mb=512))
    cells = [legacy(0, range(4), pinned=[0, 1], memory_usage=3500)]
    assert not passes(host(cells, ram_ratio=16),
                      spec(PINNED, vcpus=2, memory_mb=1024))
    assert passes(host(cells), spec(PINNED, vcpus=2, memory_mb=512))


def test_ratios_apply_per_cell_to_shared_guests():
    cells = [legacy(0, range(2), cpu_usage=3, memory_usage=4096),
             legacy(1, range(2, 4), cpu_usage=4, memory_usage=4096)]
    wanted = spec({'hw:numa_nodes': '1'}, vcpus=1, memory_mb=2048)
    # Cell 0: 3 + 1 <= 2 * 2.0 and 4096 + 2048 <= 4096 * 1.5.
    assert passes(host(cells, cpu_ratio=2.0, ram_ratio=1.5), wanted)
    assert not passes(host(cells, cpu_ratio=1.5, ram_ratio=1.5), wanted)
    # A guest never overcommits against itself: 3 CPUs > 2 in a cell.
    assert not passes(host(cells, cpu_ratio=16.0),
                      spec({'hw:numa_nodes': '1'}, vcpus=3))


def test_mixed_guests_need_both_sets_in_the_cell():
    mixed = {'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '^0'}
    assert passes(host([cell(0, cpuset=[0], pcpuset=[1, 2])]),
                  spec(mixed, vcpus=3))
    assert not passes(host([cell(0, cpuset=[0], pcpuset=[1])]),
                      spec(mixed, vcpus=3))
    # As in Nova, only the pinned part is checked against its set: the
    # shared CPUs of a mixed guest are not held against the cell's cpuset.
    assert passes(host([cell(0, cpuset=[], pcpuset=[1, 2, 3])]),
                  spec(mixed, vcpus=3))
    # Mixed needs a mask; the mask needs mixed.
    assert reason(host([cell(0, [0], [1])]), spec(
        {'hw:cpu_policy': 'mixed'})).startswith('bad NUMA request')
    assert reason(host([cell(0, [0], [1])]), spec(
        {'hw:cpu_dedicated_mask': '0'})).startswith('bad NUMA request')


def test_a_mixed_cell_without_dedicated_cpus_finds_no_pinning():
    # Nova quirk kept: guest cell 1 (CPUs 2-3, all shared) gets an empty
    # pinning, which Nova's packing treats as no fit.
    mixed = {'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '0-1',
             'hw:numa_nodes': '2'}
    cells = [cell(0, [0, 1], [2, 3]), cell(1, [4, 5], [6, 7])]
    assert not passes(host(cells), spec(mixed, vcpus=4, memory_mb=2048))


def test_an_isolated_emulator_thread_takes_one_more_dedicated_cpu():
    wanted = spec(dict(PINNED, **{'hw:emulator_threads_policy': 'isolate'}),
                  vcpus=2)
    assert not passes(host([legacy(0, range(2))]), wanted)
    assert passes(host([legacy(0, range(3))]), wanted)


# -- Thread policies ----------------------------------------------------

HT = [[0, 1], [2, 3], [4, 5]]


def test_isolate_needs_whole_free_cores():
    cells = [legacy(0, range(6), siblings=HT, pinned=[1])]
    isolate = dict(PINNED, **{'hw:cpu_thread_policy': 'isolate'})
    assert passes(host(cells), spec(isolate, vcpus=2))
    assert not passes(host(cells), spec(isolate, vcpus=3))
    # With separate shared and dedicated sets on an SMT host, never.
    split = [cell(0, cpuset=[6, 7], pcpuset=range(6), siblings=HT)]
    assert not passes(host(split), spec(isolate, vcpus=1))


def test_require_needs_sibling_pairs():
    require = dict(PINNED, **{'hw:cpu_thread_policy': 'require'})
    cells = [legacy(0, range(6), siblings=HT, pinned=[1, 3])]
    # Free cores: {0}, {2}, {4, 5}: one free pair.
    assert passes(host(cells), spec(require, vcpus=2))
    assert not passes(host(cells), spec(require, vcpus=3))
    no_ht = [legacy(0, range(6), siblings=[[i] for i in range(6)])]
    assert not passes(host(no_ht), spec(require, vcpus=2))
    # A report without thread siblings fails before any packing.
    assert reason(host([legacy(0, range(6))]), spec(require, vcpus=2)) == (
        'have no thread siblings')


def test_prefer_falls_back_to_any_free_cpus():
    cells = [legacy(0, range(6), siblings=HT, pinned=[1, 3])]
    prefer = dict(PINNED, **{'hw:cpu_thread_policy': 'prefer'})
    assert passes(host(cells), spec(prefer, vcpus=4))
    assert not passes(host(cells), spec(prefer, vcpus=5))


def test_thread_policy_conflicts_and_needs_pinning():
    cells = [legacy(0, range(6), siblings=HT)]
    assert reason(host(cells), spec(
        {'hw:cpu_thread_policy': 'isolate'})).startswith('bad NUMA request')
    assert reason(host(cells), spec(
        dict(PINNED, **{'hw:cpu_thread_policy': 'isolate'}),
        image={'hw_cpu_thread_policy': 'require'})).startswith(
        'bad NUMA request')
    # The flavor's prefer stands (the image may not override it); with no
    # flavor policy the image's isolate applies.
    busy = host([legacy(0, range(6), siblings=HT, pinned=[0])])
    assert passes(busy, spec(dict(PINNED, **{'hw:cpu_thread_policy':
                                             'prefer'}),
                             image={'hw_cpu_thread_policy': 'isolate'},
                             vcpus=3))
    assert not passes(busy, spec(PINNED, image={'hw_cpu_thread_policy':
                                                'isolate'}, vcpus=3))


# -- Cells --------------------------------------------------------------

def test_explicit_cells_land_on_distinct_host_cells():
    wanted = spec({'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0',
                   'hw:numa_cpus.1': '1-3', 'hw:numa_mem.0': '512',
                   'hw:numa_mem.1': '1536'}, vcpus=4, memory_mb=2048)
    cells = [legacy(0, range(3)), legacy(1, range(3, 4))]
    assert passes(host(cells), wanted)
    cells = [legacy(0, range(1)), legacy(1, range(1, 2))]
    assert not passes(host(cells), wanted)


@pytest.mark.parametrize('specs', [
    {'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0-1', 'hw:numa_mem.0': '512'},
    {'hw:numa_nodes': '1', 'hw:numa_cpus.0': '0-3'},
    {'hw:numa_nodes': '1', 'hw:numa_cpus.0': '0-4', 'hw:numa_mem.0': '1024'},
    {'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0-2', 'hw:numa_cpus.1': '2-3',
     'hw:numa_mem.0': '512', 'hw:numa_mem.1': '512'},
    {'hw:cpu_policy': 'dedicated', 'resources:PCPU': '4'},
    {'hw:mem_page_size': '2M'},
])
def test_requests_nova_refuses(specs):
    cells = [legacy(0, range(4)), legacy(1, range(4, 8))]
    assert reason(host(cells), spec(specs, vcpus=4)).startswith(
        'bad NUMA request')


def test_resources_pcpu_and_hyperthreading_trait_mean_pinning():
    cells = [legacy(0, range(6), siblings=HT, pinned=[1, 3])]
    assert passes(host(cells), spec({'resources:PCPU': '2',
                                     'trait:HW_CPU_HYPERTHREADING':
                                     'required'}))
    assert not passes(host(cells), spec({'resources:PCPU': '2',
                                         'trait:HW_CPU_HYPERTHREADING':
                                         'forbidden'}))


# -- PCI NUMA affinity --------------------------------------------------

ALIAS = {'name': 'nic', 'vendor_id': '8086', 'product_id': '1520'}


def _pool(numa_node, count=1):
    return {'vendor_id': '8086', 'product_id': '1520', 'count': count,
            'numa_node': numa_node, 'dev_type': 'type-PCI'}


def _affinity_case(conf, policy, pools, sockets=(0, 0), alias_policy=None):
    alias = dict(ALIAS, numa_policy=alias_policy) if alias_policy else ALIAS
    conf.config(alias=[json.dumps(alias)], group='pci')
    # Cell 1 (with the device) has no memory left: the guest gets cell 0.
    cells = [legacy(0, range(2), socket=sockets[0]),
             legacy(1, range(2, 4), socket=sockets[1], memory_usage=4096)]
    specs = {'hw:numa_nodes': '1', 'pci_passthrough:alias': 'nic:1'}
    if policy:
        specs['hw:pci_numa_affinity_policy'] = policy
    return passes(host(cells, pci_stats=pools), spec(specs))


@pytest.mark.parametrize('policy,pools,expected', [
    ('required', [_pool(1)], False),
    ('required', [_pool(0)], True),
    ('legacy', [_pool(1)], False),
    ('legacy', [_pool(1), _pool(None)], True),
    (None, [_pool(1), _pool(None)], True),
    ('preferred', [_pool(1)], True),
    ('socket', [_pool(1)], True),
    ('socket', [_pool(None)], False),
])
def test_pci_numa_affinity_policies(conf, policy, pools, expected):
    assert _affinity_case(conf, policy, pools) is expected


def test_socket_policy_needs_the_same_socket(conf):
    assert not _affinity_case(conf, 'socket', [_pool(1)], sockets=(0, 1))
    assert not _affinity_case(conf, 'socket', [_pool(1)],
                              sockets=(0, None))


def test_the_flavor_policy_overrides_the_alias_policy(conf):
    assert not _affinity_case(conf, None, [_pool(1)],
                              alias_policy='required')
    assert _affinity_case(conf, 'preferred', [_pool(1)],
                          alias_policy='required')


def test_devices_steer_the_guest_to_their_cell(conf):
    conf.config(alias=[json.dumps(ALIAS)], group='pci')
    cells = [legacy(0, range(2)), legacy(1, range(2, 4))]
    wanted = spec({'hw:numa_nodes': '1', 'pci_passthrough:alias': 'nic:2',
                   'hw:pci_numa_affinity_policy': 'required'})
    assert passes(host(cells, pci_stats=[_pool(1, 2)]), wanted)
    assert not passes(host(cells, pci_stats=[_pool(0, 1), _pool(1, 1)]),
                      wanted)


# -- Claims: the next instance sees the usage ----------------------------

def _instance(uuid, vcpus, memory_mb, **extra_specs):
    flavor = objects.Flavor(flavorid='f', name='f', vcpus=vcpus,
                            memory_mb=memory_mb, root_gb=1,
                            extra_specs=extra_specs)
    return host_state.HostInstance(uuid, 'p', 'building', None, flavor, {},
                                   frozenset())


def _usage(cells, instances, **kwargs):
    return host_usage.numa_usage(cells, instances, **kwargs)


def test_isolate_pins_whole_cores_and_the_next_guest_sees_it():
    cells = [legacy(0, range(6), siblings=HT)]
    isolate = dict(PINNED, **{'hw:cpu_thread_policy': 'isolate'})
    used = _usage(cells, [_instance('a', 2, 512, **isolate)])
    assert used[0]['pinned_cpus'] == [0, 1, 2, 3]
    assert not passes(host(used), spec(isolate, vcpus=2))
    assert passes(host(used), spec(PINNED, vcpus=2, memory_mb=512))


def test_pages_are_used_by_the_size_chosen():
    cells = [cell(0, range(4), mempages=[(KIB_4K, 524288, 0),
                                         (KIB_2M, 1024, 0)])]
    used = _usage(cells, [
        _instance('a', 1, 1024, **{'hw:mem_page_size': 'any'}),
        _instance('b', 1, 1024, **{'hw:numa_nodes': '1'})])
    pools = {p['size_kb']: p['used'] for p in used[0]['mempages']}
    # a took 2 MiB pages (largest first); b, asking for none, is counted
    # in small pages.
    assert pools == {KIB_2M: 512, KIB_4K: 262144}
    assert used[0]['memory_usage'] == 2048


def test_spread_puts_a_guest_on_the_emptiest_cell():
    cells = [legacy(0, range(4), memory_usage=1024),
             legacy(1, range(4, 8)),
             legacy(2, range(8, 12), memory_usage=512)]
    used = _usage(cells, [_instance('a', 2, 1024,
                                    **{'hw:numa_nodes': '1'})])
    assert [c['memory_usage'] for c in used] == [1024, 1024, 512]
    # Pinned guests go first to the cell with most free dedicated CPUs.
    cells[1]['pinned_cpus'] = [4, 5, 6]
    used = _usage(cells, [_instance('a', 1, 256, **PINNED)])
    assert [c['pinned_cpus'] for c in used] == [[], [4, 5, 6], [8]]


def test_a_claim_updates_the_host_for_the_next_instance():
    state = fake_hosts.host(numa_topology=[])
    state._numa_cells = [legacy(0, range(4))]
    state.set_instances([])
    wanted = spec(PINNED, vcpus=3, memory_mb=512)
    assert passes(state, wanted)
    state.add_instance(_instance('a', 3, 512, **PINNED))
    assert state.numa_topology[0]['pinned_cpus'] == [0, 1, 2]
    assert not passes(state, wanted)
    assert passes(state, spec(PINNED, vcpus=1, memory_mb=512))


def test_devices_are_taken_from_the_guest_cell(conf):
    conf.config(alias=[json.dumps(dict(ALIAS, numa_policy='required'))],
                group='pci')
    cells = [legacy(0, range(2), memory_usage=4096), legacy(1, range(2, 4))]
    pools = [_pool(0), _pool(1)]
    guest = _instance('a', 1, 512, **{'hw:numa_nodes': '1',
                                      'pci_passthrough:alias': 'nic:1'})
    used, left = host_usage.node_usage(cells, pools, [guest])
    assert [c['memory_usage'] for c in used] == [4096, 512]
    assert [p['count'] for p in left] == [1, 0]
    # Without a topology the first matching pool gives the device.
    plain = _instance('b', 1, 512, **{'pci_passthrough:alias': 'nic:1'})
    _used, left = host_usage.node_usage(cells, pools, [plain])
    assert [p['count'] for p in left] == [0, 1]


def test_the_packing_strategy_fills_the_busiest_cell_first(conf):
    conf.config(packing_host_numa_cells_allocation_strategy=True)
    cells = [legacy(0, range(4), memory_usage=1024),
             legacy(1, range(4, 8)),
             legacy(2, range(8, 12), memory_usage=512)]
    used = _usage(cells, [_instance('a', 2, 1024,
                                    **{'hw:numa_nodes': '1'})])
    assert [c['memory_usage'] for c in used] == [2048, 0, 512]
