"""ComputeNode 1.1, RequestSpec 1.1, SchedulerRetries, Aggregate and
InstanceGroup without a database: versions, backports, what is stored."""

from oslo_serialization import jsonutils
import pytest

from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import base

GROUP = '3d3c2c55-5d5b-4a8e-9d0c-6f4f3e2a1b10'
CTXT = nl_context.get_admin_context()


def _manifest(**versions):
    """The version manifest of a peer of the first release, as the
    conductor's backport receives it."""
    manifest = {name: classes[0].VERSION for name, classes in
                base.NovaLiteObjectRegistry.obj_classes().items()}
    manifest.update(versions)
    return manifest


def _node(**extra):
    return objects.ComputeNode(
        uuid='a4b0c0de-0000-4000-8000-000000000007', host='h1',
        hypervisor_hostname='n1', vcpus=8, memory_mb=1024, local_gb=10,
        hypervisor_type='fake', hypervisor_version=1, cpu_info='{}',
        stats={}, **extra)


def _data(primitive):
    return primitive['nova_lite_object.data']


def test_compute_node_backport_drops_the_new_fields():
    node = _node(metrics={'cpu.percent': 3.0}, numa_topology=[],
                 pci_device_pools=[{'count': 1}])
    old = node.obj_to_primitive(target_version='1.0')
    assert old['nova_lite_object.version'] == '1.0'
    assert not {'metrics', 'numa_topology', 'pci_device_pools'} & set(
        _data(old))
    assert _data(old)['host'] == 'h1'
    current = _data(node.obj_to_primitive())
    assert current['metrics'] == {'cpu.percent': 3.0}


def test_compute_node_list_backports_its_children_without_manifest():
    nodes = objects.ComputeNodeList(objects=[_node(metrics={'m': 1.0})])
    old = nodes.obj_to_primitive(target_version='1.0')
    [child] = _data(old)['objects']
    assert child['nova_lite_object.version'] == '1.0'
    assert 'metrics' not in _data(child)


def _spec(**extra):
    flavor = objects.Flavor(flavorid='1', name='f', vcpus=1, memory_mb=64,
                            root_gb=1, extra_specs={})
    return objects.RequestSpec(project_id='p', user_id='u', flavor=flavor,
                               num_instances=2, scheduler_hints={}, **extra)


def _group(**extra):
    values = dict(uuid=GROUP, name='g', project_id='p', user_id='u',
                  policy='anti-affinity', rules={'max_server_per_host': 2},
                  members=['m1'], hosts=['h1'])
    values.update(extra)
    return objects.InstanceGroup(**values)


def test_request_spec_backport_drops_group_retry_and_bfv():
    spec = _spec(instance_group=_group(), is_bfv=False,
                 retry=objects.SchedulerRetries(num_attempts=1,
                                                hosts=[['h', 'n']]))
    old = spec.obj_to_primitive(target_version='1.0',
                                version_manifest=_manifest(
                                    RequestSpec='1.0'))
    assert old['nova_lite_object.version'] == '1.0'
    assert not {'instance_group', 'retry', 'is_bfv'} & set(_data(old))
    assert _data(old)['num_instances'] == 2
    back = objects.RequestSpec.obj_from_primitive(old)
    assert not back.obj_attr_is_set('instance_group')


def test_stored_spec_keeps_the_group_but_not_its_members_nor_retry():
    spec = _spec(instance_group=_group(), instance_uuid=GROUP)
    spec.record_attempt('h1', 'n1')
    stored = jsonutils.loads(spec._to_json())
    data = _data(stored)
    assert 'retry' not in data
    group = _data(data['instance_group'])
    assert group['uuid'] == GROUP and group['rules'] == {
        'max_server_per_host': 2}
    assert 'members' not in group and 'hosts' not in group
    assert 'members' not in data['instance_group'].get(
        'nova_lite_object.changes', [])


def test_record_attempt_accumulates_hosts():
    spec = _spec()
    assert not spec.obj_attr_is_set('retry')
    spec.record_attempt('h1', 'n1')
    copy = spec.copy_for_instance('00000000-0000-0000-0000-000000000001')
    copy.record_attempt('h2', 'n2')
    assert (copy.retry.num_attempts, copy.retry.hosts) == (
        2, [['h1', 'n1'], ['h2', 'n2']])
    # The copy does not change the original's record.
    assert spec.retry.hosts == [['h1', 'n1']]


def test_the_spec_for_a_compute_counts_its_own_attempts():
    spec = _spec()
    spec.record_attempt('h1', 'n1')
    sent = spec.for_compute('00000000-0000-0000-0000-000000000001')
    sent.record_attempt('h2', 'n2')
    assert (sent.retry.num_attempts, sent.retry.hosts) == (
        2, [['h1', 'n1'], ['h2', 'n2']])
    assert (spec.retry.num_attempts, spec.retry.hosts) == (1, [['h1', 'n1']])
    assert not sent.obj_attr_is_set('flavor')
    assert not _spec().for_compute(sent.instance_uuid).obj_attr_is_set(
        'retry')

def test_new_fields_default():
    spec = _spec()
    spec.obj_set_defaults()
    assert spec.instance_group is None and spec.retry is None
    assert spec.is_bfv is False


def test_aggregate_zone_is_its_metadata():
    aggregate = objects.Aggregate(name='a', metadata={})
    assert aggregate.availability_zone is None
    aggregate.metadata = {'availability_zone': 'az1'}
    assert aggregate.availability_zone == 'az1'


def test_aggregate_hosts_are_not_created_with_it():
    aggregate = objects.Aggregate(CTXT, name='a', hosts=['h1'])
    with pytest.raises(exception.ObjectActionError):
        aggregate.create()


def test_aggregate_save_only_renames():
    aggregate = objects.Aggregate(CTXT, id=1, name='a', metadata={})
    aggregate.obj_reset_changes()
    aggregate.metadata = {'k': 'v'}
    with pytest.raises(exception.ObjectActionError):
        aggregate.save()


def test_group_policy_must_be_known():
    with pytest.raises(exception.ObjectActionError):
        objects.InstanceGroup(CTXT, name='g', policy='sometimes',
                              project_id='p', user_id='u').create()


def test_group_rules_are_integers():
    assert _group(rules={'max_server_per_host': '3'}).rules == {
        'max_server_per_host': 3}
