"""The compute's diagnostics (RPC 1.7): a running server's, and Nova's
refusal (InstanceInvalidState on the power state) otherwise."""

from oslo_utils import uuidutils
import pytest

from nova_lite.compute import diagnostics
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.virt import fake


@pytest.fixture
def driver():
    driver = fake.FakeDriver()
    driver.init_host('host1')
    return driver


def _spawned(driver):
    flavor = objects.Flavor(flavorid='f1', name='small', vcpus=1,
                            memory_mb=512, root_gb=1, ephemeral_gb=0,
                            swap=0)
    instance = objects.Instance(uuid=uuidutils.generate_uuid(),
                                flavor=flavor, node='host1-n0',
                                launched_at=None)
    driver.spawn(None, instance, None, 'host1-n0')
    return instance


def test_a_running_server_has_both_kinds(driver):
    instance = _spawned(driver)
    assert diagnostics.instance_diagnostics(driver, instance)['uptime'] == 0
    assert 'cpu0_time' in diagnostics.driver_diagnostics(driver, instance)


@pytest.mark.parametrize('operation,state', [
    ('power_off', 'shutdown'), ('pause', 'paused'),
    ('suspend', 'suspended')])
def test_a_server_not_running_is_refused(driver, operation, state):
    instance = _spawned(driver)
    getattr(driver, operation)(None, instance)
    for get in (diagnostics.instance_diagnostics,
                diagnostics.driver_diagnostics):
        with pytest.raises(exception.InstanceInvalidState) as err:
            get(driver, instance)
        assert err.value.kwargs['attr'] == 'power_state'
        assert err.value.kwargs['state'] == state


def test_a_driver_without_diagnostics_says_so():
    class Bare(fake.FakeDriver):
        get_instance_diagnostics = fake.driver.ComputeDriver.\
            get_instance_diagnostics

    driver = Bare()
    driver.init_host('host1')
    instance = _spawned(driver)
    assert driver.get_info(instance) == fields.PowerState.RUNNING
    with pytest.raises(NotImplementedError):
        diagnostics.instance_diagnostics(driver, instance)


def test_a_server_the_driver_does_not_have_is_pending(driver):
    """Nova reads no VM as "no state": refused as pending, not a 404."""
    instance = _spawned(driver)
    driver.destroy(None, instance)
    with pytest.raises(exception.InstanceInvalidState) as err:
        diagnostics.instance_diagnostics(driver, instance)
    assert err.value.kwargs['state'] == 'pending'
