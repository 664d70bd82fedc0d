"""What a compute reports for the scheduler's filters: the driver's
metrics, PCI pools and NUMA cells on the node record, the failed_builds
stat, and the zone of the host a server is built on."""

from unittest import mock

import pytest

from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.virt import fake
from tests.unit.compute import fakes
from tests.unit.compute import test_manager
from tests.unit.compute import test_resource_tracker

env = test_resource_tracker.env
manager_env = test_manager.env


@pytest.fixture(autouse=True)
def _stop_patches():
    yield
    mock.patch.stopall()


def _record(env, nodename):
    return next(r for r in env.records.values()
                if r.hypervisor_hostname == nodename)


def _update(env):
    env.tracker.update_available_resource(env.ctxt)
    # The tracker created the records; later reads find them.
    for node in env.tracker._compute_nodes.values():
        env.records[node.uuid] = node


def test_node_record_carries_the_driver_data(conf):
    conf.config(group='fake_driver', node_count=2, vcpus=4,
                memory_mb=4096, numa_nodes=2,
                metrics=['cpu.percent=12.5'],
                pci_devices=['8086:1520:2:0:type-VF'],
                node=['1:metrics=mem.free=9+cpu.percent=1,numa_nodes=0,'
                      'pci_devices=10de:1eb8:1'])
    env = test_resource_tracker._env()
    _update(env)
    first = _record(env, 'host1-n0')
    assert first.metrics == {'cpu.percent': 12.5}
    assert first.pci_device_pools == [
        {'vendor_id': '8086', 'product_id': '1520', 'count': 2,
         'numa_node': 0, 'dev_type': 'type-VF'}]
    assert [c['cpus'] for c in first.numa_topology] == [[0, 1], [2, 3]]
    assert [c['memory_mb'] for c in first.numa_topology] == [2048, 2048]
    second = _record(env, 'host1-n1')
    assert second.metrics == {'mem.free': 9.0, 'cpu.percent': 1.0}
    assert second.numa_topology is None
    assert second.pci_device_pools[0]['numa_node'] is None


def test_nodes_without_driver_data_have_none(env):
    _update(env)
    node = _record(env, 'host1-n0')
    assert (node.metrics, node.pci_device_pools, node.numa_topology) == (
        None, None, None)
    assert 'failed_builds' not in node.stats


def test_failed_builds_count_and_reset(env):
    _update(env)
    node = _record(env, 'host1-n0')
    env.saved.clear()
    assert env.tracker.build_failed('host1-n0') == node.uuid
    assert env.tracker.build_failed('host1-n0') == node.uuid
    assert node.stats['failed_builds'] == '2'
    # Written at once, not at the next periodic update.
    assert [changes['stats']['failed_builds']
            for name, changes in env.saved] == ['1', '2']
    assert env.tracker.build_succeeded('host1-n0') == node.uuid
    assert node.stats['failed_builds'] == '0'
    # Nothing to reset: nothing saved, nobody to tell.
    assert env.tracker.build_succeeded('host1-n0') is None
    # The periodic update keeps the count.
    env.tracker.build_failed('host1-n0')
    _update(env)
    assert _record(env, 'host1-n0').stats['failed_builds'] == '1'
    assert 'failed_builds' not in _record(env, 'host1-n1').stats


def test_failed_build_of_an_unknown_node_is_only_counted(env):
    assert env.tracker.build_failed('host1-n0') is None
    _update(env)
    assert _record(env, 'host1-n0').stats['failed_builds'] == '1'


def test_stats_save_failure_is_not_fatal(env):
    _update(env)
    objects.ComputeNode.save.side_effect = RuntimeError('conductor gone')
    assert env.tracker.build_failed('host1-n0') is None


@pytest.mark.parametrize('text', ['a:1', 'zz:1520:1', '8086:1520:x',
                                  '8086:1520:1:0:type-XX'])
def test_bad_pci_devices_are_refused(conf, text):
    conf.config(group='fake_driver', pci_devices=[text])
    with pytest.raises(exception.ConfigInvalid) as err:
        fake.build_nodes('host1')
    assert text in err.value.format_message()


def test_bad_metrics_are_refused(conf):
    conf.config(group='fake_driver', metrics=['cpu=high'])
    with pytest.raises(exception.ConfigInvalid) as err:
        fake.build_nodes('host1')
    assert 'cpu=high' in err.value.format_message()


def test_numa_cells_split_evenly_with_remainders_first():
    cells = fake.numa_cells(5, 1001, 2)
    assert [c['cpus'] for c in cells] == [[0, 1, 2], [3, 4]]
    assert [c['memory_mb'] for c in cells] == [501, 500]
    assert fake.numa_cells(4, 1024, 0) is None


def test_build_outcomes_are_recorded_on_the_node(manager_env):
    # The node's stats are saved through the conductor, whose compute
    # node write tells the schedulers (placement.changes): the compute
    # sends no notice itself.
    env = manager_env
    rt = env.manager.rt
    with mock.patch.object(rt, 'build_failed', return_value='n-uuid'), \
            mock.patch.object(rt, 'build_succeeded', return_value=None):
        inst = fakes.instance()
        with mock.patch.object(env.manager.driver, 'spawn',
                               side_effect=RuntimeError('boom')):
            test_manager._build(env, inst, alternates=1)
        rt.build_failed.assert_called_once_with('host1-n0')
        test_manager._build(env, fakes.instance())
        rt.build_succeeded.assert_called_once_with('host1-n0')
        env.manager._scheduler_api.update_provider_states.assert_not_called()


def test_server_takes_the_zone_of_its_host(manager_env):
    env = manager_env
    inst = fakes.instance()
    selection = fakes.selection('host1', 'host1-n0')
    selection.availability_zone = 'az1'
    spec = objects.RequestSpec(instance_uuid=inst.uuid)
    env.manager.build_and_run_instance(
        nl_context.get_admin_context(), inst, 'host1-n0', spec,
        [selection]).result(timeout=10)
    assert env.saves[0]['changes']['availability_zone'] == 'az1'
    assert inst.availability_zone == 'az1'
