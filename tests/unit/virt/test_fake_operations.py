"""The fake driver's server operations: power states, delays, failures."""

from unittest import mock

from oslo_utils import uuidutils
import pytest

from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.virt import fake

P = fields.PowerState


def _spawned(driver, node):
    flavor = objects.Flavor(flavorid='f1', name='small', vcpus=1,
                            memory_mb=512, root_gb=1, ephemeral_gb=0, swap=0)
    instance = objects.Instance(uuid=uuidutils.generate_uuid(),
                                flavor=flavor)
    driver.spawn(None, instance, None, node)
    return instance


@pytest.fixture
def driver(conf):
    conf.config(group='fake_driver', node_count=2)
    driver = fake.FakeDriver()
    driver.init_host('host1')
    return driver


@pytest.mark.parametrize('call,args,power_state', [
    ('power_off', (), P.SHUTDOWN), ('power_on', (), P.RUNNING),
    ('pause', (), P.PAUSED), ('unpause', (), P.RUNNING),
    ('suspend', (), P.SUSPENDED), ('resume', (), P.RUNNING),
    ('reboot', ('HARD',), P.RUNNING)])
def test_each_operation_sets_its_power_state(driver, call, args,
                                              power_state):
    instance = _spawned(driver, 'host1-n0')
    getattr(driver, call)(None, instance, *args)
    assert driver.get_info(instance) == power_state


def test_an_unknown_instance_is_not_found(driver):
    instance = objects.Instance(uuid=uuidutils.generate_uuid())
    with pytest.raises(exception.InstanceNotFound):
        driver.power_off(None, instance)


def test_fail_operations_on_a_node_by_index_and_name(conf):
    conf.config(group='fake_driver', node_count=3,
                fail_operations=['reboot:1', 'pause:host1-n2'])
    driver = fake.FakeDriver()
    driver.init_host('host1')
    on_0, on_1, on_2 = (_spawned(driver, 'host1-n%d' % i) for i in range(3))
    driver.reboot(None, on_0, 'SOFT')
    driver.pause(None, on_1)
    with pytest.raises(exception.InstanceOperationFailed) as err:
        driver.reboot(None, on_1, 'SOFT')
    assert 'reboot:host1-n1' in err.value.format_message()
    with pytest.raises(exception.InstanceOperationFailed):
        driver.pause(None, on_2)
    # A failed operation leaves the VM as it was.
    assert driver.get_info(on_2) == P.RUNNING


def test_fail_operations_star_is_every_node(conf):
    conf.config(group='fake_driver', node_count=2,
                fail_operations=['power_off:*'])
    driver = fake.FakeDriver()
    driver.init_host('host1')
    for node in ('host1-n0', 'host1-n1'):
        with pytest.raises(exception.InstanceOperationFailed):
            driver.power_off(None, _spawned(driver, node))


@pytest.mark.parametrize('value', ['fly:0', 'reboot', 'reboot:', 'reboot:7'])
def test_malformed_fail_operations_stop_the_driver(conf, value):
    conf.config(group='fake_driver', fail_operations=[value])
    with pytest.raises(exception.ConfigInvalid) as err:
        fake.FakeDriver().init_host('host1')
    assert value.split(':')[0] in err.value.format_message()


def test_operation_delays(driver, conf):
    conf.config(group='fake_driver', operation_delays={'suspend': '0.25'})
    instance = _spawned(driver, 'host1-n0')
    with mock.patch.object(fake.time, 'sleep') as sleep:
        driver.suspend(None, instance)
        driver.resume(None, instance)
    sleep.assert_called_once_with(0.25)


def test_a_bad_delay_names_the_option(driver, conf):
    conf.config(group='fake_driver', operation_delays={'reboot': 'soon'})
    with pytest.raises(exception.ConfigInvalid) as err:
        driver.reboot(None, _spawned(driver, 'host1-n0'), 'SOFT')
    assert 'operation_delays' in err.value.format_message()


def test_snapshot_keeps_the_vm_and_reports_a_size(driver):
    instance = _spawned(driver, 'host1-n0')
    size = driver.snapshot(None, instance, 'image-1')
    assert size == fake.SNAPSHOT_BYTES_PER_GB
    assert driver.get_info(instance) == P.RUNNING


def test_shelve_offload_removes_the_vm_and_unshelve_spawns_it(driver):
    instance = _spawned(driver, 'host1-n0')
    driver.shelve_offload(None, instance)
    assert instance.uuid not in driver.list_instance_uuids()
    driver.shelve_offload(None, instance)   # idempotent
    driver.unshelve(None, instance, None, 'host1-n1')
    assert driver.get_info(instance) == P.RUNNING
    assert driver.get_available_resource('host1-n1')['running_vms'] == 1


def test_snapshot_and_shelve_operations_fail_where_told(conf):
    conf.config(group='fake_driver', node_count=2,
                fail_operations=['snapshot:0', 'unshelve:host1-n1',
                                 'shelve_offload:0'])
    driver = fake.FakeDriver()
    driver.init_host('host1')
    instance = _spawned(driver, 'host1-n0')
    with pytest.raises(exception.InstanceOperationFailed):
        driver.snapshot(None, instance, 'image-1')
    with pytest.raises(exception.InstanceOperationFailed):
        driver.shelve_offload(None, instance)
    assert instance.uuid in driver.list_instance_uuids()
    driver.destroy(None, instance)
    with pytest.raises(exception.InstanceOperationFailed):
        driver.unshelve(None, instance, None, 'host1-n1')
    assert instance.uuid not in driver.list_instance_uuids()
