"""Build receipts and lost casts to computes (conductor/tasks/ownership.py,
lost_casts.py), on every backend."""

from unittest import mock

from oslo_utils import uuidutils
import pytest

from nova_lite.conductor.tasks import lost_casts
from nova_lite.conductor.tasks import ownership
from nova_lite import objects
from nova_lite.placement import allocations
from nova_lite.placement import changes
from nova_lite.placement import providers
from tests.functional.db import test_build_owners as owners

ctxt = owners.ctxt
COMPUTE = 'nova-lite-compute'


def _compute(ctxt, host, up=True, version=None):
    svc = objects.Service(ctxt, host=host, binary=COMPUTE, topic='compute')
    svc.create()
    svc.heartbeat()
    values = {}
    if version is not None:
        values['version'] = version
    if not up:
        values['last_seen_up'] = owners.datetime.datetime(2000, 1, 1)
    if values:
        owners._update(ctxt, owners.models.Service,
                       owners.models.Service.id == svc.id, values)
    node = objects.ComputeNode(
        ctxt, uuid=uuidutils.generate_uuid(), host=host,
        hypervisor_hostname=host + '-n0', vcpus=8, memory_mb=4096,
        local_gb=100, hypervisor_type='fake', hypervisor_version=1,
        cpu_info='{}', stats={})
    node.create()
    providers.ensure_provider(ctxt, node.uuid, node.hypervisor_hostname)
    providers.set_inventories(ctxt, node.uuid, {'VCPU': {
        'total': 8, 'reserved': 0, 'min_unit': 1, 'max_unit': 8,
        'step_size': 1, 'allocation_ratio': 1.0}})
    return node


def _cast_to(ctxt, node, age=60, suffix=''):
    """A build cast to ``node``'s compute ``age`` seconds ago (``suffix``:
    ``#<re-casts>``), holding one VCPU there, with its RequestSpec."""
    inst = owners._building(ctxt, '-' + node.host + suffix, age=age)
    objects.RequestSpec(ctxt, instance_uuid=inst.uuid,
                        num_instances=1).create()
    allocations.claim(ctxt, inst.uuid, 'p1', 'u1', {node.uuid: {'VCPU': 1}})
    return inst


def _apis():
    return mock.Mock(), mock.Mock()


def test_a_receipt_marks_the_build_acknowledged(ctxt):
    inst = owners._building(ctxt, '-c1')
    assert not ownership.acknowledge(ctxt, inst.uuid, 'c2')
    assert owners._owner(ctxt, inst.uuid) == '-c1'
    assert ownership.acknowledge(ctxt, inst.uuid, 'c1')
    assert owners._owner(ctxt, inst.uuid) == ownership.HANDED_OFF
    # A duplicate receipt changes nothing.
    assert not ownership.acknowledge(ctxt, inst.uuid, 'c1')


def test_a_receipt_after_re_casts_marks_it_acknowledged(ctxt):
    inst = owners._building(ctxt, '-c_#2')
    # The host is matched as it is: "_" is no LIKE wildcard here.
    assert not ownership.acknowledge(ctxt, inst.uuid, 'cx')
    assert ownership.acknowledge(ctxt, inst.uuid, 'c_')
    assert owners._owner(ctxt, inst.uuid) == ownership.HANDED_OFF


def test_a_re_cast_is_counted_unless_acknowledged_meanwhile(ctxt):
    inst = owners._building(ctxt, '-c1')
    assert ownership.count_recast(ctxt, inst.uuid, 'c1', 2)
    assert owners._owner(ctxt, inst.uuid) == '-c1#2'
    assert ownership.acknowledge(ctxt, inst.uuid, 'c1')
    assert not ownership.count_recast(ctxt, inst.uuid, 'c1', 3)
    assert owners._owner(ctxt, inst.uuid) == ownership.HANDED_OFF


def test_a_compute_that_never_acknowledges_ends_the_build_in_error(ctxt,
                                                                   conf):
    conf.config(group='conductor', lost_cast_retries=2)
    node = _compute(ctxt, 'c1')
    inst = _cast_to(ctxt, node, suffix='#2')
    scheduler_api, compute_api = _apis()
    assert lost_casts.settle(ctxt, scheduler_api, compute_api, 5) == {
        inst.uuid: 'failed'}
    compute_api.build_and_run_instance.assert_not_called()
    inst = objects.Instance.get_by_uuid(ctxt, inst.uuid)
    assert inst.vm_state == 'error'
    [fault] = objects.InstanceFault.get_all_for_instance(ctxt, inst.uuid)
    assert 'acknowledged none of the 2 re-casts' in fault.message
    assert allocations.get_for_consumer(ctxt, inst.uuid) == {}


def test_which_casts_are_unacknowledged(ctxt):
    old = owners._building(ctxt, '-c1', age=60)
    owners._building(ctxt, '-c1', age=1)            # within the grace
    owners._building(ctxt, ownership.HANDED_OFF, age=60)   # acknowledged
    owners._building(ctxt, ownership.token(), age=60)      # not cast yet
    started = owners._building(ctxt, '-c1', age=60)
    owners._update(ctxt, owners.models.Instance,
                   owners.models.Instance.uuid == started.uuid,
                   {'host': 'c1', 'task_state': 'spawning'})
    assert ownership.unacknowledged_casts(ctxt, 5) == [(old.uuid, '-c1')]


def test_a_lost_cast_to_a_compute_that_is_up_is_cast_again(ctxt):
    node = _compute(ctxt, 'c1')
    inst = _cast_to(ctxt, node)
    scheduler_api, compute_api = _apis()
    assert lost_casts.settle(ctxt, scheduler_api, compute_api, 5) == {
        inst.uuid: 're-cast'}
    (call,) = compute_api.build_and_run_instance.call_args_list
    _context, instance, host, nodename, spec, host_list = call[0]
    assert (instance.uuid, host, nodename) == (inst.uuid, 'c1', 'c1-n0')
    assert spec.instance_uuid == inst.uuid
    assert [s.compute_node_uuid for s in host_list] == [node.uuid]
    assert host_list[0].allocations == {node.uuid: {'VCPU': 1}}
    # Waiting for a receipt again, from now: nothing to do at once.
    assert owners._owner(ctxt, inst.uuid) == '-c1#1'
    assert lost_casts.settle(ctxt, scheduler_api, compute_api, 5) == {}
    assert allocations.get_for_consumer(ctxt, inst.uuid) == {
        node.uuid: {'VCPU': 1}}


def test_a_lost_cast_to_a_compute_that_is_down_ends_in_error(ctxt):
    node = _compute(ctxt, 'c1', up=False)
    inst = _cast_to(ctxt, node)
    scheduler_api, compute_api = _apis()
    heard = []
    previous = changes.set_publisher(
        lambda providers, aggregates, generations, instances: heard.append(
            set(providers)))
    try:
        assert lost_casts.settle(ctxt, scheduler_api, compute_api, 5) == {
            inst.uuid: 'failed'}
    finally:
        changes.set_publisher(previous)
    compute_api.build_and_run_instance.assert_not_called()
    inst = objects.Instance.get_by_uuid(ctxt, inst.uuid)
    assert (inst.vm_state, inst.task_state) == ('error', None)
    [fault] = objects.InstanceFault.get_all_for_instance(ctxt, inst.uuid)
    assert 'c1' in fault.message and 'down' in fault.message
    assert allocations.get_for_consumer(ctxt, inst.uuid) == {}
    # The freed provider's write told the schedulers.
    assert node.uuid in set().union(*heard)


def test_a_build_with_no_allocation_there_ends_in_error(ctxt):
    node = _compute(ctxt, 'c1')
    inst = _cast_to(ctxt, node)
    allocations.remove(ctxt, inst.uuid)
    scheduler_api, compute_api = _apis()
    assert lost_casts.settle(ctxt, scheduler_api, compute_api, 5) == {
        inst.uuid: 'failed'}
    compute_api.build_and_run_instance.assert_not_called()
    [fault] = objects.InstanceFault.get_all_for_instance(ctxt, inst.uuid)
    assert 'no allocation' in fault.message


def test_an_older_compute_is_left_to_the_build_timeout(ctxt):
    node = _compute(ctxt, 'c1', version=lost_casts.ACK_SERVICE_VERSION - 1)
    inst = _cast_to(ctxt, node)
    scheduler_api, compute_api = _apis()
    assert lost_casts.settle(ctxt, scheduler_api, compute_api, 5) == {}
    assert owners._owner(ctxt, inst.uuid) == '-c1'


def test_nothing_while_an_older_conductor_runs(ctxt):
    node = _compute(ctxt, 'c1')
    inst = _cast_to(ctxt, node)
    owners._conductor(ctxt, 'old', version=1)
    ownership._enabled_cache.update(until=0.0)
    assert lost_casts.settle(ctxt, *_apis(), 5) == {}
    assert owners._owner(ctxt, inst.uuid) == '-c1'


def test_of_two_conductors_one_settles_a_lost_cast(ctxt):
    node = _compute(ctxt, 'c1')
    inst = _cast_to(ctxt, node)
    scheduler_api, compute_api = _apis()
    real_claim = ownership.claim_lost

    def racing_claim(context, uuid, owner):
        # Another conductor wins the compare-and-swap first.
        assert real_claim(context, uuid, owner)
        return real_claim(context, uuid, owner)

    with mock.patch.object(ownership, 'claim_lost', racing_claim):
        assert lost_casts.settle(ctxt, scheduler_api, compute_api, 5) == {}
    compute_api.build_and_run_instance.assert_not_called()
    assert owners._owner(ctxt, inst.uuid) == '+' + ownership.token()


@pytest.mark.parametrize('owner', ['-c1', ownership.HANDED_OFF])
def test_a_handed_off_build_handed_back_is_taken(ctxt, owner):
    inst = owners._building(ctxt, owner)
    assert ownership.take_handed_back(ctxt, inst.uuid)
    assert ownership.take_fresh(ctxt, inst.uuid) is True
