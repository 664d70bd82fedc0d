"""The fake driver's VMs outlive the compute process, as a hypervisor's
guests do: a new FakeDriver on the same host finds them."""

import os

from oslo_utils import uuidutils
import pytest

from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.virt import fake
from nova_lite.virt import fake_vms

P = fields.PowerState


def _flavor(memory_mb=512):
    return objects.Flavor(flavorid='f1', name='small', vcpus=1,
                          memory_mb=memory_mb, root_gb=1, ephemeral_gb=0,
                          swap=0)


def _spawned(driver, node='host1-n0'):
    instance = objects.Instance(uuid=uuidutils.generate_uuid(),
                                flavor=_flavor())
    driver.spawn(None, instance, None, node)
    return instance


def _restarted():
    driver = fake.FakeDriver()
    driver.init_host('host1')
    return driver


@pytest.fixture
def driver(conf):
    conf.config(group='fake_driver', node_count=2)
    return _restarted()


def test_vms_and_their_power_state_survive_a_restart(driver):
    running, stopped, destroyed = (_spawned(driver) for _ in range(3))
    driver.power_off(None, stopped)
    driver.destroy(None, destroyed)
    again = _restarted()
    assert sorted(again.list_instance_uuids()) == sorted(
        [running.uuid, stopped.uuid])
    assert again.get_info(running) == P.RUNNING
    assert again.get_info(stopped) == P.SHUTDOWN
    with pytest.raises(exception.InstanceNotFound):
        again.get_info(destroyed)
    usage = again.get_available_resource('host1-n0')
    assert (usage['running_vms'], usage['memory_mb_used']) == (2, 1024)


def test_a_move_source_copy_survives_a_restart(driver):
    instance = _spawned(driver)
    driver.migrate_disk_and_power_off(None, instance, _flavor(1024),
                                      'host2', 'host2-n0')
    assert driver.list_instance_uuids() == []
    again = _restarted()
    again.finish_revert_migration(None, instance, 'host1-n0', True)
    assert again.get_info(instance) == P.RUNNING
    assert _restarted().list_instance_uuids() == [instance.uuid]


def test_a_changed_vm_is_a_new_record(driver):
    instance = _spawned(driver)
    record = driver._instances[instance.uuid]
    driver.pause(None, instance)
    assert record.power_state == P.RUNNING   # frozen: replaced, not edited
    with pytest.raises(AttributeError):
        record.power_state = P.PAUSED


def test_an_unreadable_vm_file_names_itself(driver, state_path):
    instance = _spawned(driver)
    path = os.path.join(fake_vms.host_directory('host1', 'vms'),
                        '%s.json' % instance.uuid)
    with open(path, 'w') as f:
        f.write('{"uuid": ')
    with pytest.raises(exception.ConfigInvalid, match=instance.uuid):
        _restarted()


def test_a_temporary_file_left_by_a_crash_is_ignored(driver):
    instance = _spawned(driver)
    directory = fake_vms.host_directory('host1', 'vms')
    with open(os.path.join(directory, 'x.json.tmp'), 'w') as f:
        f.write('{"half')
    assert _restarted().list_instance_uuids() == [instance.uuid]


def test_pop_without_default_raises_and_keeps_files(tmp_path):
    vms = fake_vms.PersistentVMs(str(tmp_path / 'vms'), fake.FakeInstance)
    with pytest.raises(KeyError):
        vms.pop('nope')
    vms['a'] = fake.FakeInstance(uuid='a', node='n', vcpus=1,
                                 memory_mb=1, local_gb=1)
    del vms['a']
    assert os.listdir(str(tmp_path / 'vms')) == []
