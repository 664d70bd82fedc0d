"""The fake driver's diagnostics and uptime, checked against the shapes
the API shows: tempest.lib's 2.48 diagnostics schema and the ``uptime``
command's format."""

import datetime
import re

import jsonschema
from oslo_utils import timeutils
from oslo_utils import uuidutils
import pytest
from tempest.lib.api_schema.response.compute.v2_48 import servers as v2_48

from nova_lite import exception
from nova_lite import objects
from nova_lite.virt import fake
from nova_lite.virt import fake_diagnostics

# What `uptime` prints, e.g. " 08:32:11 up 93 days, 18:25,  0 users, ..."
UPTIME_LINE = re.compile(
    r'^ \d\d:\d\d:\d\d up (\d+ days?, [ \d]\d:\d\d|[ \d]\d:\d\d|\d+ min),'
    r'  \d+ users,  load average: \d+\.\d\d, \d+\.\d\d, \d+\.\d\d$')


def _spawned(driver, ephemeral_gb=0, swap=0, launched_ago=120):
    flavor = objects.Flavor(flavorid='f1', name='small', vcpus=2,
                            memory_mb=2048, root_gb=20,
                            ephemeral_gb=ephemeral_gb, swap=swap)
    launched = timeutils.utcnow() - datetime.timedelta(seconds=launched_ago)
    instance = objects.Instance(uuid=uuidutils.generate_uuid(),
                                flavor=flavor, node='host1-n0',
                                launched_at=launched)
    driver.spawn(None, instance, None, 'host1-n0')
    return instance


@pytest.fixture
def driver():
    driver = fake.FakeDriver()
    driver.init_host('host1')
    return driver


def test_standard_diagnostics_match_tempests_schema(driver):
    instance = _spawned(driver, ephemeral_gb=1, swap=512)
    found = driver.get_instance_diagnostics(instance)
    jsonschema.validate(found, v2_48.show_server_diagnostics['response_body'])
    assert found['state'] == 'running'
    assert found['hypervisor'] == 'fake'
    assert (found['num_cpus'], found['num_disks'], found['num_nics']) == (
        2, 3, 0)
    assert len(found['cpu_details']) == 2
    assert len(found['disk_details']) == 3
    assert found['memory_details']['maximum'] == 2048
    assert 118 <= found['uptime'] <= 130


def test_driver_diagnostics_are_a_flat_dict_of_numbers(driver):
    instance = _spawned(driver)
    found = driver.get_diagnostics(instance)
    assert found['memory'] == 2048 * 1024
    assert {'cpu0_time', 'cpu1_time', 'vda_read', 'vda_write_req'} <= set(
        found)
    assert 'vdb_read' not in found
    assert all(isinstance(v, int) for v in found.values())


def test_a_vm_the_driver_lacks_is_not_found(driver):
    instance = _spawned(driver)
    driver.destroy(None, instance)
    with pytest.raises(exception.InstanceNotFound):
        driver.get_instance_diagnostics(instance)
    with pytest.raises(exception.InstanceNotFound):
        driver.get_diagnostics(instance)


def test_host_uptime_is_in_the_format_of_the_uptime_command(driver):
    line = driver.get_host_uptime()
    assert UPTIME_LINE.match(line), line


@pytest.mark.parametrize('seconds,span', [
    (59, '0 min'), (3 * 3600 + 7 * 60, ' 3:07'),
    (86400 + 3600, '1 day,  1:00'), (93 * 86400 + 18 * 3600 + 25 * 60,
                                     '93 days, 18:25')])
def test_uptime_spans(seconds, span):
    line = fake_diagnostics.format_uptime(
        seconds, now=(2026, 1, 1, 8, 32, 11, 0, 1, 0),
        load=(0.2, 0.12, 0.14))
    assert line == (' 08:32:11 up %s,  0 users,  load average: 0.20, '
                    '0.12, 0.14' % span)
    assert UPTIME_LINE.match(line)
