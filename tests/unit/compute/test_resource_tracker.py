"""The resource tracker: claims, usage, node records, placement reports."""

import json
import types
from unittest import mock

import os_traits
import pytest

from nova_lite.compute import provider_report
from nova_lite.compute import resource_tracker
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.virt import fake
from tests.unit.compute import fakes


@pytest.fixture
def env(conf):
    """A tracker over a 2-node fake driver; objects' remote calls mocked."""
    conf.config(group='fake_driver', node_count=2)
    return _env()


def _env(driver_class=fake.FakeDriver):
    driver = driver_class()
    driver.init_host('host1')
    conductor = mock.Mock()
    conductor.update_compute_provider.return_value = None
    ns = types.SimpleNamespace(
        driver=driver, conductor=conductor, instances=[],
        ctxt=nl_context.get_admin_context(), created=[], saved=[],
        records={}, migrations=[], by_uuid={},
        service=fakes.service())
    ns.tracker = resource_tracker.ResourceTracker('host1', driver,
                                                  conductor_api=conductor)

    def get_by_uuid(ctxt, uuid):
        if uuid not in ns.records:
            raise exception.ComputeNodeNotFound(node=uuid)
        return ns.records[uuid]

    def get_by_host_and_nodename(ctxt, host, nodename):
        for record in ns.records.values():
            if (record.host, record.hypervisor_hostname) == (host, nodename):
                return record
        raise exception.ComputeNodeNotFound(node=nodename)

    def create(node):
        ns.created.append(node.hypervisor_hostname)
        node.obj_reset_changes()

    def save(node):
        ns.saved.append((node.hypervisor_hostname, node.obj_get_changes()))
        node.obj_reset_changes()

    patches = [
        mock.patch.object(objects.InstanceList, 'get_by_host',
                          side_effect=lambda c, h: list(ns.instances)),
        mock.patch.object(objects.MigrationList, 'get_by_filters',
                          side_effect=lambda c, f: list(ns.migrations)),
        mock.patch.object(objects.Instance, 'get_by_uuid',
                          side_effect=lambda c, u: ns.by_uuid[u]),
        mock.patch.object(objects.Service, 'get_by_host_and_binary',
                          side_effect=lambda c, h, b: ns.service),
        mock.patch.object(objects.ComputeNode, 'get_by_uuid',
                          side_effect=get_by_uuid),
        mock.patch.object(objects.ComputeNode, 'get_by_host_and_nodename',
                          side_effect=get_by_host_and_nodename),
        mock.patch.object(objects.ComputeNode, 'create', autospec=True,
                          side_effect=create),
        mock.patch.object(objects.ComputeNode, 'save', autospec=True,
                          side_effect=save),
    ]
    for patch in patches:
        patch.start()
    ns.stop = lambda: [p.stop() for p in patches]
    return ns


@pytest.fixture(autouse=True)
def _stop_patches():
    yield
    mock.patch.stopall()


def _reports(env):
    """{nodename: (compute_node, inventories, traits, owned)} reported."""
    result = {}
    for call in env.conductor.update_compute_provider.call_args_list:
        ctxt, node, inventories, traits, owned = call.args
        result[node.hypervisor_hostname] = (node, inventories, traits, owned)
    return result


# Claims

def test_claim_that_fits_is_counted(env):
    inst = fakes.instance(vcpus=4, memory_mb=4096, root_gb=40, swap=512)
    claim = env.tracker.instance_claim(env.ctxt, inst, 'host1-n0')
    assert claim.resources == {'VCPU': 4, 'MEMORY_MB': 4096, 'DISK_GB': 41}
    assert env.tracker.usage('host1-n0') == claim.resources
    assert env.tracker.usage('host1-n1') == {'VCPU': 0, 'MEMORY_MB': 0,
                                             'DISK_GB': 0}


def test_claim_that_does_not_fit_says_why(env):
    # 65536 MiB with 512 reserved at ratio 1.0: 65024 usable.
    env.tracker.instance_claim(env.ctxt, fakes.instance(memory_mb=60000),
                               'host1-n0')
    inst = fakes.instance(memory_mb=6000)
    with pytest.raises(exception.ComputeResourcesUnavailable) as err:
        env.tracker.instance_claim(env.ctxt, inst, 'host1-n0')
    message = err.value.format_message()
    assert 'node host1-n0 cannot take instance %s' % inst.uuid in message
    assert ('MEMORY_MB: 6000 requested, 5024 free (total 65536, reserved '
            '512, allocation ratio 1.0, 60000 in use)') in message
    assert 'VCPU' not in message
    # The failed claim holds nothing; another node still has room.
    assert env.tracker.usage('host1-n0')['MEMORY_MB'] == 60000
    env.tracker.instance_claim(env.ctxt, inst, 'host1-n1')


def test_claim_larger_than_the_node_fails_whatever_the_ratio(env):
    with pytest.raises(exception.ComputeResourcesUnavailable,
                       match='VCPU: 17 requested, more than the node total '
                             '16'):
        env.tracker.instance_claim(env.ctxt, fakes.instance(vcpus=17),
                                   'host1-n0')


def test_initial_cpu_ratio_allows_overcommit(env):
    for _ in range(4):   # 16 VCPUs at the initial ratio 4.0: 64
        env.tracker.instance_claim(env.ctxt, fakes.instance(
            vcpus=16, memory_mb=1), 'host1-n0')
    with pytest.raises(exception.ComputeResourcesUnavailable,
                       match='VCPU: 1 requested, 0 free'):
        env.tracker.instance_claim(env.ctxt, fakes.instance(
            vcpus=1, memory_mb=1), 'host1-n0')


def test_forced_ratio_and_reserved_cpus(env, conf):
    conf.config(cpu_allocation_ratio=1.0, reserved_host_cpus=4)
    env.tracker.instance_claim(env.ctxt, fakes.instance(vcpus=10),
                               'host1-n0')
    with pytest.raises(exception.ComputeResourcesUnavailable,
                       match=r'VCPU: 4 requested, 2 free \(total 16, '
                             r'reserved 4, allocation ratio 1.0'):
        env.tracker.instance_claim(env.ctxt, fakes.instance(vcpus=4),
                                   'host1-n0')
    env.tracker.instance_claim(env.ctxt, fakes.instance(vcpus=2),
                               'host1-n0')


def test_reserved_disk_rounds_up_to_whole_gib(env, conf):
    conf.config(reserved_host_disk_mb=1025, disk_allocation_ratio=1.0)
    env.tracker.instance_claim(env.ctxt, fakes.instance(root_gb=998),
                               'host1-n0')
    with pytest.raises(exception.ComputeResourcesUnavailable,
                       match='DISK_GB: 1 requested, 0 free'):
        env.tracker.instance_claim(env.ctxt, fakes.instance(root_gb=1),
                                   'host1-n0')


def test_abort_gives_resources_back_once(env):
    inst = fakes.instance(vcpus=3)
    claim = env.tracker.instance_claim(env.ctxt, inst, 'host1-n0')
    assert claim.abort() == {'VCPU': 3, 'MEMORY_MB': 2048, 'DISK_GB': 20}
    assert env.tracker.usage('host1-n0')['VCPU'] == 0
    assert claim.abort() == {}


def test_claim_as_context_manager_aborts_on_error(env):
    inst = fakes.instance()
    with pytest.raises(RuntimeError):
        with env.tracker.instance_claim(env.ctxt, inst, 'host1-n0'):
            raise RuntimeError('spawn broke')
    assert env.tracker.usage('host1-n0')['VCPU'] == 0
    with env.tracker.instance_claim(env.ctxt, inst, 'host1-n0'):
        pass
    assert env.tracker.usage('host1-n0')['VCPU'] == 2


def test_claiming_again_does_not_count_twice(env):
    inst = fakes.instance(vcpus=2)
    env.tracker.instance_claim(env.ctxt, inst, 'host1-n0')
    env.tracker.instance_claim(env.ctxt, inst, 'host1-n0')
    assert env.tracker.usage('host1-n0')['VCPU'] == 2


def test_claim_on_a_node_of_another_host(env):
    with pytest.raises(exception.ComputeResourcesUnavailable,
                       match='node host2-n0 is not a node of host host1'):
        env.tracker.instance_claim(env.ctxt, fakes.instance(), 'host2-n0')


def test_free_instance(env):
    inst = fakes.instance()
    env.tracker.instance_claim(env.ctxt, inst, 'host1-n0')
    assert env.tracker.free_instance(inst) is True
    assert env.tracker.usage('host1-n0')['VCPU'] == 0
    assert env.tracker.free_instance(inst) is False


def test_placement_ratio_is_adopted_for_claims(env):
    env.conductor.update_compute_provider.return_value = {
        'VCPU': {'total': 16, 'allocation_ratio': 1.0}}
    env.tracker.update_available_resource(env.ctxt, startup=True)
    env.tracker.instance_claim(env.ctxt, fakes.instance(vcpus=16),
                               'host1-n0')
    with pytest.raises(exception.ComputeResourcesUnavailable,
                       match='allocation ratio 1.0'):
        env.tracker.instance_claim(env.ctxt, fakes.instance(vcpus=1),
                                   'host1-n0')


# Usage from the database

def test_usage_counts_this_hosts_instances_on_known_nodes(env):
    env.instances = [
        fakes.instance('host1', 'host1-n0', vm_state='active',
                       task_state=None, vcpus=2),
        fakes.instance('host1', 'host1-n0', vcpus=4),
        fakes.instance('host1', 'host1-n1', vcpus=8),
        fakes.instance('host1', 'gone-node', vcpus=1),
    ]
    env.tracker.update_available_resource(env.ctxt)
    assert env.tracker.usage('host1-n0')['VCPU'] == 6
    assert env.tracker.usage('host1-n1')['VCPU'] == 8


def test_refresh_keeps_builds_in_flight_and_drops_vanished(env):
    listed = fakes.instance('host1', 'host1-n0', vm_state='active',
                            task_state=None, vcpus=3)
    env.instances = [listed]
    env.tracker.update_available_resource(env.ctxt)
    building = fakes.instance(vcpus=5)
    env.tracker.instance_claim(env.ctxt, building, 'host1-n0')
    env.instances = []       # deleted elsewhere; the build not saved yet
    env.tracker.update_available_resource(env.ctxt)
    assert env.tracker.usage('host1-n0')['VCPU'] == 5
    building.vm_state, building.task_state = 'active', None
    env.tracker.update_usage(env.ctxt, building, 'host1-n0')
    env.tracker.update_available_resource(env.ctxt)
    assert env.tracker.usage('host1-n0')['VCPU'] == 0


def test_instance_freed_while_listing_is_not_counted_again(env):
    inst = fakes.instance('host1', 'host1-n0', vcpus=3)

    def listing(ctxt, host):
        # The delete lands between the read and the recount.
        env.tracker.free_instance(inst)
        return [inst]

    objects.InstanceList.get_by_host.side_effect = listing
    env.tracker.update_available_resource(env.ctxt)
    assert env.tracker.usage('host1-n0')['VCPU'] == 0


def test_listing_failure_propagates_and_reports_nothing(env):
    objects.InstanceList.get_by_host.side_effect = RuntimeError('timeout')
    with pytest.raises(RuntimeError):
        env.tracker.update_available_resource(env.ctxt)
    env.conductor.update_compute_provider.assert_not_called()


# Compute node records

def test_new_nodes_get_records(env, conf):
    conf.config(reserved_host_memory_mb=1024, reserved_host_disk_mb=2048)
    env.instances = [
        fakes.instance('host1', 'host1-n0', vm_state='active',
                       task_state=None, project_id='pA', vcpus=2,
                       memory_mb=1000, root_gb=10),
        fakes.instance('host1', 'host1-n0', project_id='pB', vcpus=1,
                       memory_mb=500, root_gb=5),
    ]
    env.tracker.update_available_resource(env.ctxt, startup=True)
    assert env.created == ['host1-n0', 'host1-n1']
    node = _reports(env)['host1-n0'][0]
    assert node.uuid == env.driver.get_node_uuid('host1-n0')
    assert (node.host, node.service_id) == ('host1', 7)
    assert (node.vcpus, node.memory_mb, node.local_gb) == (16, 65536, 1000)
    assert (node.vcpus_used, node.memory_mb_used, node.local_gb_used) == (
        3, 2524, 17)
    assert node.running_vms == 2
    assert (node.hypervisor_type, node.hypervisor_version) == ('fake', 1000)
    assert json.loads(node.cpu_info)['arch'] == 'x86_64'
    assert (node.cpu_allocation_ratio, node.ram_allocation_ratio,
            node.disk_allocation_ratio) == (4.0, 1.0, 1.0)
    assert node.stats == {
        'num_instances': '2', 'io_workload': '1', 'num_vm_active': '1',
        'num_vm_building': '1', 'num_task_None': '1',
        'num_task_scheduling': '1', 'num_proj_pA': '1', 'num_proj_pB': '1'}
    unset = {f for f in node.fields if not node.obj_attr_is_set(f)}
    assert unset <= {'id', 'created_at', 'updated_at', 'host_ip'}
    empty = _reports(env)['host1-n1'][0]
    assert empty.stats == {'num_instances': '0', 'io_workload': '0'}
    assert empty.memory_mb_used == 1024


def test_existing_record_is_updated_not_created(env, conf):
    uuid = env.driver.get_node_uuid('host1-n0')
    env.records[uuid] = objects.ComputeNode(
        uuid=uuid, host='host1', hypervisor_hostname='host1-n0', vcpus=8,
        memory_mb=1, local_gb=1, hypervisor_type='fake',
        hypervisor_version=1, cpu_info='{}', cpu_allocation_ratio=2.0,
        ram_allocation_ratio=1.5, disk_allocation_ratio=1.0, stats={})
    env.records[uuid].obj_reset_changes()
    env.tracker.update_available_resource(env.ctxt)
    assert env.created == ['host1-n1']
    saved = dict(env.saved)['host1-n0']
    assert saved['vcpus'] == 16
    # An unforced ratio the record already has is kept.
    assert 'cpu_allocation_ratio' not in saved
    assert env.records[uuid].cpu_allocation_ratio == 2.0
    conf.config(cpu_allocation_ratio=3.0)
    env.tracker.update_available_resource(env.ctxt)
    assert env.records[uuid].cpu_allocation_ratio == 3.0


def test_record_with_another_uuid_blocks_only_that_node(env):
    stale = objects.ComputeNode(
        uuid='5a2c0a6a-0c3d-4c9e-9a37-0d6f9b9b0a11', host='host1',
        hypervisor_hostname='host1-n0')
    env.records[stale.uuid] = stale
    env.tracker.update_available_resource(env.ctxt, startup=True)
    assert list(_reports(env)) == ['host1-n1']
    assert env.created == ['host1-n1']


def test_one_failing_node_does_not_stop_the_others(conf):
    conf.config(group='fake_driver', node_count=3)
    env = _env(fake.FirstNodeUnreachableFakeDriver)
    env.tracker.update_available_resource(env.ctxt, startup=True)
    assert sorted(_reports(env)) == ['host1-n1', 'host1-n2']


def test_failed_report_is_retried_next_time(env):
    env.conductor.update_compute_provider.side_effect = [
        RuntimeError('conductor gone'), None, None, None]
    env.tracker.update_available_resource(env.ctxt, startup=True)
    assert env.conductor.update_compute_provider.call_count == 2
    env.tracker.update_available_resource(env.ctxt)
    # Only the node whose report failed is sent again.
    assert env.conductor.update_compute_provider.call_count == 3
    assert env.conductor.update_compute_provider.call_args.args[
        1].hypervisor_hostname == 'host1-n0'


# Placement reports

def test_inventories_reported(env, conf):
    conf.config(reserved_host_cpus=1, reserved_host_memory_mb=2048,
                reserved_host_disk_mb=1500, ram_allocation_ratio=1.5)
    env.tracker.update_available_resource(env.ctxt, startup=True)
    inventories = _reports(env)['host1-n0'][1]
    assert inventories == {
        'VCPU': {'total': 16, 'reserved': 1, 'min_unit': 1, 'max_unit': 16,
                 'step_size': 1, 'allocation_ratio': None,
                 'initial_allocation_ratio': 4.0},
        'MEMORY_MB': {'total': 65536, 'reserved': 2048, 'min_unit': 1,
                      'max_unit': 65536, 'step_size': 1,
                      'allocation_ratio': 1.5,
                      'initial_allocation_ratio': 1.0},
        'DISK_GB': {'total': 1000, 'reserved': 2, 'min_unit': 1,
                    'max_unit': 1000, 'step_size': 1,
                    'allocation_ratio': None,
                    'initial_allocation_ratio': 1.0},
    }


def test_empty_resource_class_is_not_reported(conf):
    conf.config(group='fake_driver', node_count=2, node=['0:local_gb=0'])
    env = _env()
    env.tracker.update_available_resource(env.ctxt, startup=True)
    assert set(_reports(env)['host1-n0'][1]) == {'VCPU', 'MEMORY_MB'}
    assert set(_reports(env)['host1-n1'][1]) == {'VCPU', 'MEMORY_MB',
                                                 'DISK_GB'}


def test_traits_and_owned_traits(env, conf):
    env.tracker.update_available_resource(env.ctxt, startup=True)
    _, _, traits, owned = _reports(env)['host1-n0']
    assert traits == ['COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_IMAGE_TYPE_RAW',
                      'COMPUTE_NODE', 'HW_CPU_X86_SSE2']
    assert traits == sorted(traits)
    assert set(os_traits.get_traits(prefix='COMPUTE_')) <= set(owned)
    assert 'COMPUTE_STATUS_DISABLED' in owned
    assert 'HW_CPU_X86_SSE2' in owned
    # Traits an operator sets (other than COMPUTE_*) are never owned.
    assert not [t for t in owned if t.startswith('CUSTOM_')]
    assert 'HW_CPU_X86_AVX2' not in owned


def test_disabled_service_reports_status_trait(env):
    env.service = fakes.service(disabled=True)
    env.tracker.update_available_resource(env.ctxt, startup=True)
    assert 'COMPUTE_STATUS_DISABLED' in _reports(env)['host1-n0'][2]
    env.conductor.reset_mock()
    env.service = fakes.service(disabled=False)
    env.tracker.update_available_resource(env.ctxt)
    _, _, traits, owned = _reports(env)['host1-n0']
    assert 'COMPUTE_STATUS_DISABLED' not in traits
    assert 'COMPUTE_STATUS_DISABLED' in owned


def test_unreadable_service_keeps_last_known_state(env):
    env.service = fakes.service(disabled=True)
    env.tracker.update_available_resource(env.ctxt, startup=True)
    objects.Service.get_by_host_and_binary.side_effect = RuntimeError('x')
    env.conductor.reset_mock()
    env.tracker.update_available_resource(env.ctxt, startup=True)
    assert 'COMPUTE_STATUS_DISABLED' in _reports(env)['host1-n0'][2]


def test_unchanged_reports_are_skipped_but_startup_always_reports(env):
    report = env.conductor.update_compute_provider
    env.tracker.update_available_resource(env.ctxt, startup=True)
    assert report.call_count == 2
    env.instances = [fakes.instance('host1', 'host1-n0')]
    env.tracker.update_available_resource(env.ctxt)
    assert report.call_count == 2     # usage is not placement's business
    env.service = fakes.service(disabled=True)
    env.tracker.update_available_resource(env.ctxt)
    assert report.call_count == 4
    env.tracker.update_available_resource(env.ctxt)
    assert report.call_count == 4
    env.tracker.update_available_resource(env.ctxt, startup=True)
    assert report.call_count == 6


def test_inventory_change_is_reported(env, conf):
    env.tracker.update_available_resource(env.ctxt, startup=True)
    env.conductor.reset_mock()
    conf.config(reserved_host_memory_mb=4096)
    env.tracker.update_available_resource(env.ctxt)
    reports = _reports(env)
    assert sorted(reports) == ['host1-n0', 'host1-n1']
    assert reports['host1-n0'][1]['MEMORY_MB']['reserved'] == 4096


def test_trait_dropped_by_the_driver_is_still_owned_after_restart(conf):
    conf.config(group='fake_driver',
                node=['0:traits=CUSTOM_GPU+HW_CPU_X86_SSE2'])
    env = _env()
    env.tracker.update_available_resource(env.ctxt, startup=True)
    assert 'CUSTOM_GPU' in _reports(env)['host1-n0'][2]
    env.stop()

    # The operator removes the GPU trait and restarts the compute.
    conf.config(group='fake_driver', node=['0:traits=HW_CPU_X86_SSE2'])
    env = _env()
    env.tracker.update_available_resource(env.ctxt, startup=True)
    _, _, traits, owned = _reports(env)['host1-n0']
    assert 'CUSTOM_GPU' not in traits
    assert 'CUSTOM_GPU' in owned         # so the conductor removes it
    env.conductor.reset_mock()
    env.tracker.update_available_resource(env.ctxt, startup=True)
    assert 'CUSTOM_GPU' not in _reports(env)['host1-n0'][3]


def test_node_no_longer_exposed_is_forgotten(env, conf):
    env.tracker.update_available_resource(env.ctxt, startup=True)
    env.driver._nodes.pop('host1-n1')
    env.conductor.reset_mock()
    env.tracker.update_available_resource(env.ctxt, startup=True)
    assert list(_reports(env)) == ['host1-n0']
    with pytest.raises(exception.ComputeResourcesUnavailable):
        env.tracker.instance_claim(env.ctxt, fakes.instance(), 'host1-n1')


def test_reported_traits_store_survives_a_broken_file(state_path):
    store = provider_report.ReportedTraitsStore('host1')
    (state_path / 'compute').mkdir()
    (state_path / 'compute' / 'host1.json').write_text('{oops')
    assert store.get('u1') == frozenset()
    store.set('u1', {'CUSTOM_A'})
    again = provider_report.ReportedTraitsStore('host1')
    assert again.get('u1') == {'CUSTOM_A'}


def test_stats_count_building_as_io_workload():
    entries = [
        mock.Mock(vm_state=fields.VMState.BUILDING, task_state='spawning',
                  project_id='p'),
        mock.Mock(vm_state=fields.VMState.ACTIVE, task_state=None,
                  project_id='p'),
    ]
    stats = resource_tracker._stats(entries)
    assert stats['io_workload'] == '1'
    assert stats['num_proj_p'] == '2'
    # I/O-heavy tasks count too, as in Nova (and the scheduler).
    for task in ('resize_migrating', 'resize_prep', 'image_snapshot',
                 'image_backup', 'rebuilding', 'unshelving'):
        entries[1].task_state = task
        assert resource_tracker._stats(entries)['io_workload'] == '2', task
    entries[1].task_state = 'rebooting'
    assert resource_tracker._stats(entries)['io_workload'] == '1'
    assert all(isinstance(v, str) for v in stats.values())


def test_reset_makes_the_next_update_report_everything(env):
    report = env.conductor.update_compute_provider
    env.tracker.update_available_resource(env.ctxt, startup=True)
    env.tracker.update_available_resource(env.ctxt)
    assert report.call_count == 2
    env.tracker.reset()
    env.tracker.update_available_resource(env.ctxt)
    assert report.call_count == 4
