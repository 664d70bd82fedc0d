"""The lost-cast finder decides per build (conductor/tasks/lost_casts.py);
tests/functional/db/test_lost_casts.py runs it on every database."""

from unittest import mock

import pytest

from nova_lite.conductor.tasks import lost_casts
from nova_lite.conductor.tasks import ownership
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from tests.unit.compute import fakes

NODE = 'aaaaaaaa-0000-4000-8000-000000000001'


@pytest.fixture
def world(monkeypatch):
    owners = mock.Mock()
    owners.enabled.return_value = True
    owners.claim_lost.return_value = True
    owners.hand_off.return_value = True
    owners.cast_target.side_effect = ownership.cast_target
    owners.recasts.side_effect = ownership.recasts
    owners.working = mock.MagicMock()
    monkeypatch.setattr(lost_casts, 'ownership', owners)
    monkeypatch.setattr(lost_casts.build, 'ownership', owners)
    services = {}
    monkeypatch.setattr(objects.ServiceList, 'get_all', classmethod(
        lambda cls, ctxt: list(services.values())))
    instances = {}
    monkeypatch.setattr(objects.Instance, 'get_by_uuid', classmethod(
        lambda cls, ctxt, uuid: instances[uuid]))
    monkeypatch.setattr(objects.RequestSpec, 'get_by_instance_uuid',
                        classmethod(lambda cls, ctxt, uuid:
                                    objects.RequestSpec(instance_uuid=uuid,
                                                        num_instances=1)))
    monkeypatch.setattr(objects.ComputeNode, 'get_by_uuid', classmethod(
        lambda cls, ctxt, uuid: objects.ComputeNode(
            uuid=uuid, host='c1', hypervisor_hostname='c1-n0')))
    held = {}
    monkeypatch.setattr(lost_casts.allocations, 'get_for_consumer',
                        lambda ctxt, uuid: held.get(uuid, {}))
    failed = []
    monkeypatch.setattr(lost_casts.build.BuildTask, '_fail',
                        lambda self, inst, exc, release: failed.append(
                            (inst.uuid, exc, release)))
    return mock.Mock(owners=owners, services=services, instances=instances,
                     held=held, failed=failed,
                     ctxt=nl_context.get_admin_context())


def _compute(world, host, up=True, version=2):
    svc = mock.Mock(host=host, binary='nova-lite-compute', is_up=up,
                    version=version)
    world.services[host] = svc


def _lost(world, host='c1', suffix=''):
    inst = fakes.instance()
    world.instances[inst.uuid] = inst
    world.held[inst.uuid] = {NODE: {'VCPU': 1}}
    world.owners.unacknowledged_casts.return_value = [
        (inst.uuid, '-' + host + suffix)]
    return inst


def _settle(world):
    scheduler_api, compute_api = mock.Mock(), mock.Mock()
    done = lost_casts.settle(world.ctxt, scheduler_api, compute_api, 5)
    return done, compute_api


def test_cast_again_to_the_same_node_while_the_compute_is_up(world):
    _compute(world, 'c1')
    inst = _lost(world)
    done, compute_api = _settle(world)
    assert done == {inst.uuid: 're-cast'}
    (call,) = compute_api.build_and_run_instance.call_args_list
    assert call[0][2:4] == ('c1', 'c1-n0')
    assert call[0][5][0].allocations == {NODE: {'VCPU': 1}}
    world.owners.hand_off.assert_called_once_with(world.ctxt, inst.uuid,
                                                  'c1')
    world.owners.count_recast.assert_called_once_with(world.ctxt, inst.uuid,
                                                      'c1', 1)
    assert world.failed == []


@pytest.mark.parametrize('up,held,word', [
    (False, True, 'down'), (True, False, 'no allocation')])
def test_failed_when_it_cannot_be_cast_again(world, up, held, word):
    _compute(world, 'c1', up=up)
    inst = _lost(world)
    if not held:
        world.held.clear()
    done, compute_api = _settle(world)
    assert done == {inst.uuid: 'failed'}
    compute_api.build_and_run_instance.assert_not_called()
    [(uuid, exc, release)] = world.failed
    assert uuid == inst.uuid and release
    assert isinstance(exc, exception.BuildCastLost)
    assert word in exc.format_message()


def test_a_compute_with_no_service_counts_as_down(world):
    inst = _lost(world, host='gone')
    assert _settle(world)[0] == {inst.uuid: 'failed'}


def test_an_allocation_on_another_host_is_not_cast_there(world):
    _compute(world, 'c2')
    inst = _lost(world, host='c2')     # the node holding it is c1's
    assert _settle(world)[0] == {inst.uuid: 'failed'}


def test_left_alone_when_another_conductor_won_it(world):
    _compute(world, 'c1')
    _lost(world)
    world.owners.claim_lost.return_value = False
    done, compute_api = _settle(world)
    assert done == {}
    compute_api.build_and_run_instance.assert_not_called()


def test_an_older_compute_never_acknowledges_so_is_left_alone(world):
    _compute(world, 'c1', version=lost_casts.ACK_SERVICE_VERSION - 1)
    _lost(world)
    assert _settle(world)[0] == {}
    world.owners.claim_lost.assert_not_called()


def test_nothing_while_an_older_conductor_runs(world):
    _compute(world, 'c1')
    _lost(world)
    world.owners.enabled.return_value = False
    assert _settle(world)[0] == {}
    world.owners.unacknowledged_casts.assert_not_called()


def test_one_failure_does_not_stop_the_others(world):
    _compute(world, 'c1')
    first, second = fakes.instance(), fakes.instance()
    world.instances[second.uuid] = second
    world.held[second.uuid] = {NODE: {'VCPU': 1}}
    world.owners.unacknowledged_casts.return_value = [
        (first.uuid, '-c1'), (second.uuid, '-c1')]   # first: no record...
    world.instances[first.uuid] = None               # ...that works
    assert _settle(world)[0] == {second.uuid: 're-cast'}


def test_a_re_cast_build_counts_on(world):
    _compute(world, 'c1')
    inst = _lost(world, suffix='#2')
    assert _settle(world)[0] == {inst.uuid: 're-cast'}
    world.owners.count_recast.assert_called_once_with(world.ctxt, inst.uuid,
                                                      'c1', 3)


@pytest.mark.parametrize('retries, suffix', [(3, '#3'), (0, '')])
def test_a_compute_that_never_acknowledges_is_given_up(world, conf, retries,
                                                       suffix):
    """Regression: a compute that stays up (heartbeats) but never
    acknowledged a build got it cast again every few seconds until
    build_timeout. Now it gets lost_cast_retries re-casts, then the build
    is failed with a fault saying why."""
    conf.config(group='conductor', lost_cast_retries=retries)
    _compute(world, 'c1')
    inst = _lost(world, suffix=suffix)
    done, compute_api = _settle(world)
    assert done == {inst.uuid: 'failed'}
    compute_api.build_and_run_instance.assert_not_called()
    world.owners.count_recast.assert_not_called()
    [(uuid, exc, release)] = world.failed
    assert uuid == inst.uuid and release
    assert 'acknowledged none of the %d re-casts' % retries in \
        exc.format_message()


@pytest.mark.parametrize('owner, host, count', [
    ('-c1', 'c1', 0), ('-c1#4', 'c1', 4), ('-a#b', 'a#b', 0),
    ('-a#b#2', 'a#b', 2)])
def test_an_unacknowledged_owner_names_its_host_and_re_casts(owner, host,
                                                            count):
    assert ownership.cast_target(owner) == host
    assert ownership.recasts(owner) == count
