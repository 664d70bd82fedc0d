"""Host aggregates, server groups and the scheduler's data, on every
backend: the writes and reads issue 4's filters and prefilters rely on."""

import os_traits
from oslo_utils import uuidutils
import pytest

from nova_lite.conductor import provider_report
from nova_lite.conductor.tasks import provision
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite import objects
from nova_lite.placement import allocations
from nova_lite.placement import providers
from nova_lite.scheduler import host_instances
from nova_lite.scheduler import host_manager

COMPUTE = 'nova-lite-compute'
DISABLED = os_traits.COMPUTE_STATUS_DISABLED
INV = {'total': 8, 'reserved': 0, 'min_unit': 1, 'max_unit': 8,
       'step_size': 1, 'allocation_ratio': 1.0}


@pytest.fixture
def ctxt(database):
    return nl_context.get_admin_context()


def _node(ctxt, host, name=None, provider=True, **extra):
    """A compute service (once per host), node and (optionally) its
    resource provider with some inventory."""
    try:
        objects.Service.get_by_host_and_binary(ctxt, host, COMPUTE)
    except exception.ServiceNotFound:
        objects.Service(ctxt, host=host, binary=COMPUTE,
                        topic='compute').create()
    node = objects.ComputeNode(
        ctxt, uuid=uuidutils.generate_uuid(), host=host,
        hypervisor_hostname=name or host, vcpus=8, memory_mb=4096,
        local_gb=100, hypervisor_type='fake', hypervisor_version=1,
        cpu_info='{}', stats={}, **extra)
    node.create()
    if provider:
        providers.ensure_provider(ctxt, node.uuid, node.hypervisor_hostname)
        providers.set_inventories(ctxt, node.uuid, {'VCPU': INV,
                                                    'MEMORY_MB': dict(
                                                        INV, total=4096,
                                                        max_unit=4096)})
    return node


def _aggregate(ctxt, name, **metadata):
    agg = objects.Aggregate(ctxt, name=name, metadata=metadata)
    agg.create()
    return agg


def test_aggregate_round_trip_and_conflicts(ctxt):
    agg = _aggregate(ctxt, 'rack1', availability_zone='az1')
    loaded = objects.Aggregate.get_by_id(ctxt, agg.id)
    assert (loaded.name, loaded.uuid, loaded.hosts) == ('rack1', agg.uuid,
                                                       [])
    assert loaded.availability_zone == 'az1'
    assert objects.Aggregate.get_by_uuid(ctxt, agg.uuid).id == agg.id
    with pytest.raises(exception.AggregateNameExists):
        _aggregate(ctxt, 'rack1')
    other = _aggregate(ctxt, 'rack2')
    other.name = 'rack1'
    with pytest.raises(exception.AggregateNameExists):
        other.save()
    other = objects.Aggregate.get_by_id(ctxt, other.id)
    other.name = 'rack3'
    other.save()
    assert objects.Aggregate.get_by_id(ctxt, other.id).name == 'rack3'
    with pytest.raises(exception.AggregateNotFound):
        objects.Aggregate.get_by_id(ctxt, 999)


def test_metadata_updates_and_removals(ctxt):
    agg = _aggregate(ctxt, 'a', availability_zone='az1', k1='v1')
    agg.update_metadata({'k1': 'v2', 'k2': 'x', 'availability_zone': None})
    assert agg.metadata == {'k1': 'v2', 'k2': 'x'}
    assert objects.Aggregate.get_by_id(ctxt, agg.id).metadata == {
        'k1': 'v2', 'k2': 'x'}
    assert agg.availability_zone is None
    assert agg.updated_at is not None


def test_hosts_are_mirrored_into_placement(ctxt):
    n1 = _node(ctxt, 'h1', 'h1-a')
    n2 = _node(ctxt, 'h1', 'h1-b')
    n3 = _node(ctxt, 'h2')
    agg = _aggregate(ctxt, 'a')
    before = providers.get_aggregates(ctxt, n1.uuid)
    changed = agg.add_host('h1')
    assert changed == [n1.uuid, n2.uuid]
    assert agg.hosts == ['h1']
    assert providers.get_aggregates(ctxt, n1.uuid) == before | {agg.uuid}
    assert providers.get_aggregates(ctxt, n2.uuid) == {agg.uuid}
    assert providers.get_aggregates(ctxt, n3.uuid) == set()
    with pytest.raises(exception.AggregateHostExists):
        agg.add_host('h1')
    # Aggregates set on a provider by others are kept.
    providers.set_aggregates(ctxt, n1.uuid, {agg.uuid, 'other-agg'})
    assert agg.delete_host('h1') == [n1.uuid, n2.uuid]
    assert providers.get_aggregates(ctxt, n1.uuid) == {'other-agg'}
    assert providers.get_aggregates(ctxt, n2.uuid) == set()
    with pytest.raises(exception.AggregateHostNotFound):
        agg.delete_host('h1')


def test_destroy_needs_an_empty_aggregate(ctxt):
    _node(ctxt, 'h1')
    agg = _aggregate(ctxt, 'a', k='v')
    agg.add_host('h1')
    with pytest.raises(exception.InvalidAggregateActionDelete):
        agg.destroy()
    agg.delete_host('h1')
    agg.destroy()
    with pytest.raises(exception.AggregateNotFound):
        objects.Aggregate.get_by_id(ctxt, agg.id)


def test_aggregate_list_queries(ctxt):
    _node(ctxt, 'h1')
    _node(ctxt, 'h2')
    a = _aggregate(ctxt, 'a', availability_zone='az1')
    b = _aggregate(ctxt, 'b', filter_tenant_id='p1')
    c = _aggregate(ctxt, 'c')
    a.add_host('h1')
    b.add_host('h1')
    b.add_host('h2')
    names = lambda aggs: [x.name for x in aggs]  # noqa: E731
    assert names(objects.AggregateList.get_all(ctxt)) == ['a', 'b', 'c']
    assert names(objects.AggregateList.get_by_host(ctxt, 'h1')) == ['a',
                                                                    'b']
    assert names(objects.AggregateList.get_by_host(
        ctxt, 'h1', key='availability_zone')) == ['a']
    assert names(objects.AggregateList.get_by_metadata_key(
        ctxt, 'filter_tenant_id', hosts=['h2'])) == ['b']
    assert names(objects.AggregateList.get_by_metadata_key(
        ctxt, 'availability_zone', hosts=['h2'])) == []
    assert names(objects.AggregateList.get_by_uuids(
        ctxt, [c.uuid, 'nope'])) == ['c']


def test_compute_node_new_fields_round_trip(ctxt):
    cells = [{'id': 0, 'cpus': [0, 1], 'memory_mb': 2048,
              'pinned_cpus': [], 'cpu_usage': 0, 'memory_usage': 0}]
    pools = [{'vendor_id': '8086', 'product_id': '1520', 'count': 2,
              'numa_node': 0, 'dev_type': 'type-VF'}]
    node = _node(ctxt, 'h1', metrics={'cpu.percent': 12.5},
                 pci_device_pools=pools, numa_topology=cells)
    loaded = objects.ComputeNode.get_by_uuid(ctxt, node.uuid)
    assert loaded.metrics == {'cpu.percent': 12.5}
    assert loaded.pci_device_pools == pools
    assert loaded.numa_topology == cells
    loaded.metrics = None
    loaded.save()
    assert objects.ComputeNode.get_by_uuid(ctxt, node.uuid).metrics is None
    bare = _node(ctxt, 'h2')
    assert objects.ComputeNode.get_by_uuid(ctxt, bare.uuid).numa_topology \
        is None


def _flavor(ctxt, **extra_specs):
    flavor = objects.Flavor(ctxt, flavorid='1', name='m1', memory_mb=512,
                            vcpus=1, root_gb=1, extra_specs=extra_specs)
    flavor.create()
    return flavor


def _spec(flavor, group=None, image_id=None):
    return objects.RequestSpec(
        project_id='p1', user_id='u1', num_instances=1, flavor=flavor,
        image=objects.ImageMeta.from_image(
            {'id': image_id or uuidutils.generate_uuid(), 'name': 'img',
             'disk_format': 'qcow2', 'properties': {}}),
        scheduler_hints={}, instance_group=group)


def _template(ctxt, flavor, image_ref='img'):
    return objects.Instance(ctxt, project_id='p1', user_id='u1',
                            display_name='vm', flavor=flavor,
                            image_ref=image_ref, vm_state='building',
                            task_state='scheduling', metadata={})


def _group(ctxt, policy='anti-affinity', **extra):
    group = objects.InstanceGroup(ctxt, name='g', project_id='p1',
                                  user_id='u1', policy=policy, **extra)
    group.create()
    return group


def test_server_group_round_trip(ctxt):
    group = _group(ctxt, rules={'max_server_per_host': 2})
    loaded = objects.InstanceGroup.get_by_uuid(ctxt, group.uuid)
    assert (loaded.name, loaded.policy, loaded.rules, loaded.members) == (
        'g', 'anti-affinity', {'max_server_per_host': 2}, [])
    assert objects.InstanceGroup.get_by_name(ctxt, 'g', 'p1').uuid == \
        group.uuid
    with pytest.raises(exception.InstanceGroupNotFound):
        objects.InstanceGroup.get_by_name(ctxt, 'g', 'p2')
    with pytest.raises(exception.ObjectActionError):
        _group(ctxt, policy='sometimes')
    _group(ctxt, policy='soft-affinity')
    assert len(objects.InstanceGroupList.get_by_project_id(ctxt, 'p1')) == 2
    assert len(objects.InstanceGroupList.get_all(ctxt)) == 2
    group.destroy()
    with pytest.raises(exception.InstanceGroupNotFound):
        objects.InstanceGroup.get_by_uuid(ctxt, group.uuid)


def test_provision_adds_members_and_hosts_follow_allocations(ctxt):
    node = _node(ctxt, 'h1')
    flavor = _flavor(ctxt)
    group = _group(ctxt)
    spec = _spec(flavor, group=objects.InstanceGroup.get_by_uuid(
        ctxt, group.uuid))
    instances = provision.provision_instances(
        ctxt, _template(ctxt, flavor), spec, 2, 2)
    uuids = [i.uuid for i in instances]
    loaded = objects.InstanceGroup.get_by_uuid(ctxt, group.uuid)
    assert loaded.members == uuids
    assert objects.InstanceGroup.get_by_instance_uuid(
        ctxt, uuids[1]).uuid == group.uuid
    # The stored spec keeps the group but not its members.
    stored = objects.RequestSpec.get_by_instance_uuid(ctxt, uuids[0])
    assert stored.instance_group.uuid == group.uuid
    assert not stored.instance_group.obj_attr_is_set('members')
    assert loaded.get_hosts() == []
    # Claimed but not yet built: the host counts already.
    allocations.claim(ctxt, uuids[0], 'p1', 'u1', {node.uuid: {'VCPU': 1}})
    assert loaded.get_hosts() == ['h1']
    assert loaded.get_hosts(exclude=[uuids[0]]) == []
    loaded.load_for_scheduling()
    assert (loaded.members, loaded.hosts) == (uuids, ['h1'])
    # A deleted member leaves the group.
    instances[0].destroy()
    assert objects.InstanceGroup.get_by_uuid(ctxt, group.uuid).members == \
        uuids[1:]


def test_host_instances_are_read_from_allocations(ctxt):
    node = _node(ctxt, 'h1')
    other = _node(ctxt, 'h2')
    image = image_api.create(ctxt, 'win', disk_format='qcow2',
                             properties={'os_distro': 'windows',
                                         'architecture': 'x86_64'})
    flavor = _flavor(ctxt, **{'hw:cpu_policy': 'dedicated'})
    group = _group(ctxt)
    spec = _spec(flavor, group=group, image_id=image['id'])
    first, second = provision.provision_instances(
        ctxt, _template(ctxt, flavor, image['id']), spec, 2, 2)
    allocations.claim(ctxt, first.uuid, 'p1', 'u1',
                      {node.uuid: {'VCPU': 1, 'MEMORY_MB': 512}})
    allocations.claim(ctxt, second.uuid, 'p1', 'u1',
                      {other.uuid: {'VCPU': 1}})
    found = host_instances.get_host_instances(ctxt)
    assert set(found) == {node.uuid, other.uuid}
    [inst] = found[node.uuid]
    assert inst.uuid == first.uuid
    assert (inst.project_id, inst.vm_state, inst.task_state) == (
        'p1', 'building', 'scheduling')
    assert inst.flavor.extra_specs == {'hw:cpu_policy': 'dedicated'}
    # Standard properties, with the legacy name mapped.
    assert inst.image_properties == {'os_distro': 'windows',
                                     'hw_architecture': 'x86_64'}
    assert inst.group_uuids == {group.uuid}
    assert inst.is_io_op
    assert set(host_instances.get_host_instances(ctxt, [other.uuid])) == {
        other.uuid}
    assert host_instances.get_host_instances(ctxt, []) == {}


def test_disabling_a_compute_sets_the_trait_at_once(ctxt):
    n1 = _node(ctxt, 'h1', 'h1-a')
    n2 = _node(ctxt, 'h1', 'h1-b')
    service = objects.Service.get_by_host_and_binary(ctxt, 'h1', COMPUTE)
    service.disabled = True
    service.disabled_reason = 'maintenance'
    service.save()
    assert DISABLED in providers.get_traits(ctxt, n1.uuid)
    assert DISABLED in providers.get_traits(ctxt, n2.uuid)
    service.disabled = False
    service.save()
    assert DISABLED not in providers.get_traits(ctxt, n1.uuid)


def test_compute_report_cannot_undo_a_disable(ctxt):
    """The compute read its service before it was disabled; its report
    must not take the trait away (nor add it to an enabled one)."""
    node = _node(ctxt, 'h1')
    service = objects.Service.get_by_host_and_binary(ctxt, 'h1', COMPUTE)
    service.disabled = True
    service.save()
    inventories = {'VCPU': dict(INV, allocation_ratio=None)}
    provider_report.update_compute_provider(
        ctxt, node, inventories, ['COMPUTE_NODE'],
        ['COMPUTE_NODE', DISABLED])
    assert DISABLED in providers.get_traits(ctxt, node.uuid)
    service.disabled = False
    service.save()
    provider_report.update_compute_provider(
        ctxt, node, inventories, ['COMPUTE_NODE', DISABLED],
        ['COMPUTE_NODE', DISABLED])
    assert providers.get_traits(ctxt, node.uuid) == {'COMPUTE_NODE'}


def test_first_report_of_a_node_joins_its_hosts_aggregates(ctxt):
    _node(ctxt, 'h1')
    agg = _aggregate(ctxt, 'a')
    agg.add_host('h1')
    late = _node(ctxt, 'h1', 'h1-late', provider=False)
    changed, _written = provider_report.update_compute_provider(
        ctxt, late, {'VCPU': dict(INV, allocation_ratio=None)}, [], [])
    assert changed
    assert providers.get_aggregates(ctxt, late.uuid) == {agg.uuid}


def test_host_manager_reads_aggregates_zones_and_instances(ctxt):
    node = _node(ctxt, 'h1')
    bare = _node(ctxt, 'h2')
    agg = _aggregate(ctxt, 'a', availability_zone='az1')
    agg.add_host('h1')
    flavor = _flavor(ctxt)
    [instance] = provision.provision_instances(
        ctxt, _template(ctxt, flavor), _spec(flavor), 1, 1)
    allocations.claim(ctxt, instance.uuid, 'p1', 'u1',
                      {node.uuid: {'VCPU': 1}})
    manager = host_manager.HostManager()
    states = {s.uuid: s for s in manager.get_host_states(ctxt)}
    assert states[node.uuid].availability_zone == 'az1'
    assert [a.name for a in states[node.uuid].aggregates] == ['a']
    assert states[node.uuid].provider_aggregates == {agg.uuid}
    assert list(states[node.uuid].instances) == [instance.uuid]
    assert states[node.uuid].num_instances == 1
    assert states[bare.uuid].availability_zone == 'nova'
    # An aggregate change reaches the scheduler as its uuid in a notice.
    agg.update_metadata({'availability_zone': 'az2'})
    changed = agg.add_host('h2')
    manager.mark_dirty(set(changed) | {agg.uuid})
    states = {s.uuid: s for s in manager.get_host_states(ctxt)}
    assert states[node.uuid].availability_zone == 'az2'
    assert states[bare.uuid].availability_zone == 'az2'
    assert states[bare.uuid].provider_aggregates == {agg.uuid}
    agg.delete_host('h1')
    agg.delete_host('h2')
    agg.destroy()
    manager.mark_dirty({agg.uuid})
    states = {s.uuid: s for s in manager.get_host_states(ctxt)}
    assert states[bare.uuid].aggregates == []
    assert states[bare.uuid].availability_zone == 'nova'
