"""The fake driver: nodes, overrides, identities, fault injection."""

import json
from unittest import mock

from oslo_utils import uuidutils
import pytest

from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.virt import fake


def _instance(vcpus=2, memory_mb=2048, root_gb=20, swap=0):
    flavor = objects.Flavor(flavorid='f1', name='small', vcpus=vcpus,
                            memory_mb=memory_mb, root_gb=root_gb,
                            ephemeral_gb=0, swap=swap)
    return objects.Instance(uuid=uuidutils.generate_uuid(), flavor=flavor)


def _driver(cls=fake.FakeDriver, host='host1'):
    driver = cls()
    driver.init_host(host)
    return driver


def test_default_node_and_its_resources():
    driver = _driver()
    assert driver.get_available_nodes() == ['host1-n0']
    res = driver.get_available_resource('host1-n0')
    assert (res['vcpus'], res['memory_mb'], res['local_gb']) == (
        16, 65536, 1000)
    assert res['hypervisor_type'] == 'fake'
    assert res['hypervisor_version'] == 1000
    assert res['hypervisor_hostname'] == 'host1-n0'
    cpu_info = json.loads(res['cpu_info'])
    assert cpu_info['arch'] == 'x86_64'
    assert cpu_info['model'] == 'fake-cpu'
    assert cpu_info['topology'] == {'sockets': 1, 'cores': 16,
                                    'threads': 1}
    assert driver.get_traits('host1-n0') == {
        'COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_IMAGE_TYPE_QCOW2',
        'HW_CPU_X86_SSE2'}


def test_node_count_and_template(conf):
    conf.config(group='fake_driver', node_count=3,
                node_name_template='%(host)s.node%(index)d')
    assert _driver().get_available_nodes() == [
        'host1.node0', 'host1.node1', 'host1.node2']


def test_defaults_are_configurable(conf):
    conf.config(group='fake_driver', vcpus=8, memory_mb=4096, local_gb=50,
                hypervisor_type='qemu', hypervisor_version=7002,
                cpu_arch='aarch64', cpu_model='neoverse',
                traits=['CUSTOM_A'])
    driver = _driver()
    res = driver.get_available_resource('host1-n0')
    assert (res['vcpus'], res['memory_mb'], res['local_gb']) == (8, 4096,
                                                                  50)
    assert (res['hypervisor_type'], res['hypervisor_version']) == (
        'qemu', 7002)
    assert json.loads(res['cpu_info'])['arch'] == 'aarch64'
    assert driver.get_traits('host1-n0') == {'CUSTOM_A'}


def test_overrides_by_index_and_by_name(conf):
    conf.config(group='fake_driver', node_count=3, node=[
        '1:vcpus=64,memory_mb=262144,traits=CUSTOM_GPU+HW_CPU_X86_AVX2',
        'host1-n2: hypervisor_type = ironic , cpu_model=big',
    ])
    driver = _driver()
    n0 = driver.get_available_resource('host1-n0')
    n1 = driver.get_available_resource('host1-n1')
    n2 = driver.get_available_resource('host1-n2')
    assert (n0['vcpus'], n1['vcpus'], n1['memory_mb']) == (16, 64, 262144)
    assert driver.get_traits('host1-n1') == {'CUSTOM_GPU',
                                             'HW_CPU_X86_AVX2'}
    assert 'HW_CPU_X86_SSE2' in driver.get_traits('host1-n0')
    assert n2['hypervisor_type'] == 'ironic'
    assert json.loads(n2['cpu_info'])['model'] == 'big'
    assert n2['vcpus'] == 16


def test_override_naming_another_hosts_node_is_ignored(conf):
    conf.config(group='fake_driver', node=['host2-n0:vcpus=1'],
                fail_spawn_nodes=['host2-n0'])
    driver = _driver()
    assert driver.get_available_resource('host1-n0')['vcpus'] == 16
    driver.spawn(None, _instance(), None, 'host1-n0')


@pytest.mark.parametrize('text,expected', [
    ('vcpus=4', 'expected "INDEX_OR_NAME:key=value,key=value"'),
    (':vcpus=4', 'expected "INDEX_OR_NAME:key=value,key=value"'),
    ('0:', 'no key=value given'),
    ('0:vcpus', '"vcpus" is not key=value'),
    ('0:vcpus=many', 'vcpus must be a non-negative integer, not "many"'),
    ('0:memory_mb=-1', 'memory_mb must be a non-negative integer'),
    ('0:colour=red', 'unknown key "colour"'),
    ('0:traits=CUSTOM_OK+not-a-trait', 'not a trait: not-a-trait'),
    ('0:hypervisor_type=', 'hypervisor_type must not be empty'),
    ('4:vcpus=1', 'node index 4 is out of range: node_count is 2'),
])
def test_bad_override_names_option_and_text(conf, text, expected):
    conf.config(group='fake_driver', node_count=2, node=[text])
    with pytest.raises(exception.ConfigInvalid) as err:
        _driver()
    message = err.value.format_message()
    assert '[fake_driver] node "%s"' % text in message
    assert expected in message


def test_bad_traits_option(conf):
    conf.config(group='fake_driver', traits=['COMPUTE_NOPE'])
    with pytest.raises(exception.ConfigInvalid,
                       match=r'\[fake_driver\] traits .*COMPUTE_NOPE'):
        _driver()


@pytest.mark.parametrize('template,count,expected', [
    ('%(hostname)s-%(index)d', 1, 'cannot be formatted'),
    ('%(host)s', 2, 'the same name'),
])
def test_bad_name_template(conf, template, count, expected):
    conf.config(group='fake_driver', node_name_template=template,
                node_count=count)
    with pytest.raises(exception.ConfigInvalid,
                       match=r'node_name_template .*' + expected):
        _driver()


def test_bad_fail_spawn_index(conf):
    conf.config(group='fake_driver', fail_spawn_nodes=['3'])
    with pytest.raises(exception.ConfigInvalid,
                       match=r'fail_spawn_nodes "3": node index 3'):
        _driver()


def test_node_uuids_persist_across_restarts(conf, state_path):
    conf.config(group='fake_driver', node_count=2)
    first = _driver()
    uuids = [first.get_node_uuid(n) for n in first.get_available_nodes()]
    assert all(uuidutils.is_uuid_like(u) for u in uuids)
    assert len(set(uuids)) == 2
    stored = json.loads((state_path / 'fake_driver' / 'host1.json')
                        .read_text())
    assert stored['nodes'] == dict(
        zip(first.get_available_nodes(), uuids, strict=True))

    again = _driver()
    assert [again.get_node_uuid(n) for n in again.get_available_nodes()] \
        == uuids


def test_node_uuids_differ_per_host_and_survive_a_shrink(conf):
    conf.config(group='fake_driver', node_count=2)
    host1 = _driver()
    second = host1.get_node_uuid('host1-n1')
    assert _driver(host='host2').get_node_uuid('host2-n0') not in (
        host1.get_node_uuid('host1-n0'), second)
    conf.config(group='fake_driver', node_count=1)
    _driver()
    conf.config(group='fake_driver', node_count=3)
    assert _driver().get_node_uuid('host1-n1') == second


def test_corrupt_state_file_is_an_error(state_path):
    (state_path / 'fake_driver').mkdir()
    (state_path / 'fake_driver' / 'host1.json').write_text('{not json')
    with pytest.raises(exception.ConfigInvalid, match='host1.json'):
        _driver()


def test_unknown_node_raises():
    driver = _driver()
    for call in (driver.get_node_uuid, driver.get_available_resource,
                 driver.get_traits):
        with pytest.raises(exception.ComputeNodeNotFound):
            call('nope')
    with pytest.raises(exception.ComputeNodeNotFound):
        driver.spawn(None, _instance(), None, 'nope')


def test_spawn_info_usage_and_destroy():
    driver = _driver()
    inst = _instance(vcpus=4, memory_mb=1024, root_gb=10, swap=1500)
    driver.spawn(None, inst, None, 'host1-n0')
    assert driver.get_info(inst) == fields.PowerState.RUNNING
    assert driver.list_instance_uuids() == [inst.uuid]
    res = driver.get_available_resource('host1-n0')
    assert (res['vcpus_used'], res['memory_mb_used'], res['local_gb_used'],
            res['running_vms']) == (4, 1024, 12, 1)
    driver.destroy(None, inst)
    assert driver.list_instance_uuids() == []
    with pytest.raises(exception.InstanceNotFound):
        driver.get_info(inst)
    driver.destroy(None, inst)   # idempotent


def test_fail_spawn_nodes_by_index_and_name(conf):
    conf.config(group='fake_driver', node_count=3,
                fail_spawn_nodes=['1', 'host1-n2'])
    driver = _driver()
    driver.spawn(None, _instance(), None, 'host1-n0')
    for node in ('host1-n1', 'host1-n2'):
        inst = _instance()
        with pytest.raises(exception.InstanceDeployFailure,
                           match='fail_spawn_nodes includes node ' + node):
            driver.spawn(None, inst, None, node)
        assert inst.uuid not in driver.list_instance_uuids()


def test_spawn_fails_variant():
    driver = _driver(fake.SpawnFailsFakeDriver)
    with pytest.raises(exception.InstanceDeployFailure,
                       match='SpawnFailsFakeDriver'):
        driver.spawn(None, _instance(), None, 'host1-n0')
    assert driver.list_instance_uuids() == []


def test_first_node_unreachable_variant(conf):
    conf.config(group='fake_driver', node_count=2)
    driver = _driver(fake.FirstNodeUnreachableFakeDriver)
    with pytest.raises(exception.HypervisorUnavailable):
        driver.get_available_resource('host1-n0')
    with pytest.raises(exception.HypervisorUnavailable):
        driver.spawn(None, _instance(), None, 'host1-n0')
    assert driver.get_available_resource('host1-n1')['vcpus'] == 16
    driver.spawn(None, _instance(), None, 'host1-n1')


def test_delays_are_slept(conf):
    conf.config(group='fake_driver', spawn_delay=2.5, destroy_delay=0.5)
    driver = _driver()
    inst = _instance()
    with mock.patch.object(fake.time, 'sleep') as sleep:
        driver.spawn(None, inst, None, 'host1-n0')
        sleep.assert_called_once_with(2.5)
        driver.destroy(None, inst)
        sleep.assert_called_with(0.5)
        assert sleep.call_count == 2


def test_no_delay_no_sleep():
    driver = _driver()
    with mock.patch.object(fake.time, 'sleep') as sleep:
        inst = _instance()
        driver.spawn(None, inst, None, 'host1-n0')
        driver.destroy(None, inst)
    sleep.assert_not_called()


def test_no_nodes_before_init_host():
    assert fake.FakeDriver().get_available_nodes() == []
