"""GET /servers/{id}/diagnostics: Nova's two shapes on either side of
2.48 (the standardized one checked against tempest.lib's schema), and
Nova's errors: 403, 404, 409 (no host, not running), 400 at 2.48 while
the computes are pinned below RPC 1.7, 501 for a driver without the
call. The compute's answers come from the fake driver itself."""

import jsonschema
import oslo_messaging as messaging
import pytest
from tempest.lib.api_schema.response.compute.v2_1 import servers as v2_1
from tempest.lib.api_schema.response.compute.v2_48 import servers as v2_48

from nova_lite.api.handlers import server_diagnostics
from nova_lite.compute import diagnostics
from nova_lite.virt import fake
from tests.unit.api import conftest
from tests.unit.api import fakes

UUID = 'c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30'
ADMIN = conftest.make_context('admin', 'ops')
URL = '/servers/%s/diagnostics' % UUID


class FakeComputeRPC:
    """The compute RPC client, answering from a fake driver's VM."""

    def __init__(self, driver):
        self.driver = driver
        self.pinned_old = False
        self.calls = []

    def can_send_diagnostics(self):
        return not self.pinned_old

    def get_diagnostics(self, context, instance):
        self.calls.append(('get_diagnostics', instance.host))
        return diagnostics.driver_diagnostics(self.driver, instance)

    def get_instance_diagnostics(self, context, instance):
        self.calls.append(('get_instance_diagnostics', instance.host))
        return diagnostics.instance_diagnostics(self.driver, instance)


@pytest.fixture
def world(monkeypatch, conf, tmp_path):
    conf.config(state_path=str(tmp_path), host='host1')
    driver = fake.FakeDriver()
    driver.init_host('host1')
    instance = fakes.instance(vm_state='active', task_state=None,
                              host='host1', node='host1-n0')
    driver.spawn(None, instance, None, 'host1-n0')
    rpc = FakeComputeRPC(driver)
    monkeypatch.setattr(server_diagnostics, 'compute',
                        fakes.FakeComputeAPI([instance]))
    monkeypatch.setattr(server_diagnostics.api, '_compute', rpc)
    return type('World', (), {'driver': driver, 'instance': instance,
                              'rpc': rpc})


def _get(api, at_version, version='2.1', context=ADMIN):
    return at_version(api(context), version)('GET', URL)


def test_2_1_is_the_drivers_own_dict(api, at_version, world):
    resp = _get(api, at_version, '2.47')
    assert resp.status_int == 200
    jsonschema.validate(resp.json,
                        v2_1.show_server_diagnostics['response_body'])
    assert resp.json['memory'] == 512 * 1024
    assert 'cpu0_time' in resp.json and 'state' not in resp.json
    assert world.rpc.calls == [('get_diagnostics', 'host1')]


def test_2_48_is_the_standardized_shape(api, at_version, world):
    resp = _get(api, at_version, '2.48')
    assert resp.status_int == 200, resp.text
    jsonschema.validate(resp.json,
                        v2_48.show_server_diagnostics['response_body'])
    assert set(v2_48.show_server_diagnostics['response_body'][
        'required']) == set(resp.json)
    assert resp.json['state'] == 'running'
    assert resp.json['num_cpus'] == len(resp.json['cpu_details']) == 1
    assert world.rpc.calls == [('get_instance_diagnostics', 'host1')]


def test_the_standard_view_fills_what_a_driver_left_out():
    view = server_diagnostics.standard_view(
        {'state': 'running', 'driver': 'libvirt', 'extra': 1,
         'cpu_details': [{'id': 0, 'time': 5, 'secret': 'x'}]})
    assert 'extra' not in view
    assert view['uptime'] is None
    assert view['memory_details'] == {'maximum': None, 'used': None}
    assert view['cpu_details'] == [{'id': 0, 'time': 5,
                                    'utilisation': None}]
    assert view['nic_details'] == view['disk_details'] == []


@pytest.mark.parametrize('persona', [
    conftest.make_context('demo', 'proj1'),
    conftest.make_context('viewer', 'proj1', ['reader'])])
def test_the_owner_is_refused(api, at_version, world, persona):
    resp = _get(api, at_version, context=persona)
    assert resp.status_int == 403
    assert 'os_compute_api:os-server-diagnostics' in resp.text
    assert world.rpc.calls == []


def test_an_unknown_server_is_404(api, world):
    resp = api(ADMIN)('GET', '/servers/%s/diagnostics'
                      % '00000000-0000-4000-8000-000000000000')
    assert resp.status_int == 404


def test_a_server_without_a_host_is_409(api, at_version, world):
    world.instance.host = None
    resp = _get(api, at_version, '2.48')
    assert resp.status_int == 409
    assert 'not ready' in resp.text
    assert world.rpc.calls == []


@pytest.mark.parametrize('version', ['2.1', '2.48'])
def test_a_server_not_running_is_409_naming_its_power_state(
        api, at_version, world, version):
    world.driver.power_off(None, world.instance)
    resp = _get(api, at_version, version)
    assert resp.status_int == 409
    assert ("Cannot 'get_diagnostics' instance %s while it is in "
            "power_state shutdown" % UUID) in resp.text


def test_pinned_below_1_7_at_2_48_is_novas_400(api, at_version, world):
    world.rpc.pinned_old = True
    resp = _get(api, at_version, '2.48')
    assert resp.status_int == 400
    assert 'complete the upgrade' in resp.text
    assert world.rpc.calls == []


def test_pinned_below_1_7_before_2_48_is_501(api, at_version, world):
    world.rpc.pinned_old = True
    resp = _get(api, at_version, '2.47')
    assert resp.status_int == 501
    assert 'pinned below RPC version 1.7' in resp.text


def test_a_driver_without_diagnostics_is_501(api, at_version, world,
                                              monkeypatch):
    def remote_not_implemented(context, instance):
        # oslo.messaging re-raises a remote builtin error as a subclass.
        raise type('NotImplementedError_Remote', (NotImplementedError,),
                   {})()
    monkeypatch.setattr(world.rpc, 'get_instance_diagnostics',
                        remote_not_implemented)
    resp = _get(api, at_version, '2.48')
    assert resp.status_int == 501
    assert 'virt driver has no such call' in resp.text



def test_a_compute_that_does_not_answer_is_503_naming_it(
        api, at_version, world, monkeypatch):
    def silent(context, instance):
        raise messaging.MessagingTimeout('no reply')
    monkeypatch.setattr(world.rpc, 'get_diagnostics', silent)
    resp = _get(api, at_version, '2.1')
    assert resp.status_int == 503
    assert 'compute service of host host1' in resp.text
