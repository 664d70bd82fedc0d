"""Builds on a compute whose service is down end at once, on every
backend (they waited for the whole build timeout)."""

import datetime

from oslo_utils import uuidutils
import pytest
import sqlalchemy as sa

from nova_lite.conductor.tasks import timeouts
from nova_lite import context as nl_context
from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import objects
from nova_lite.placement import allocations
from nova_lite.placement import providers


@pytest.fixture
def ctxt(database):
    return nl_context.get_admin_context()


def _compute(ctxt, host, up, conf):
    svc = objects.Service(ctxt, host=host, binary='nova-lite-compute',
                          topic='compute')
    svc.create()
    svc.heartbeat()
    if not up:
        _age_heartbeat(ctxt, host, conf.conf.service_down_time + 5)


@db_api.writer
def _age_heartbeat(context, host, seconds):
    then = (datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
            - datetime.timedelta(seconds=seconds))
    context.session.execute(sa.update(models.Service).where(
        models.Service.host == host).values(last_seen_up=then,
                                            updated_at=then))


def _building(ctxt, host, task_state='spawning', vm_state='building'):
    flavor = objects.Flavor(ctxt, flavorid=uuidutils.generate_uuid(),
                            name=uuidutils.generate_uuid(), memory_mb=64,
                            vcpus=1, root_gb=1)
    flavor.create()
    instance = objects.Instance(
        ctxt, uuid=uuidutils.generate_uuid(), project_id='p1', user_id='u1',
        flavor=flavor, vm_state=vm_state, task_state=task_state, host=host,
        node='%s-n0' % host)
    instance.create()
    rp = uuidutils.generate_uuid()
    providers.ensure_provider(ctxt, rp, '%s-%s' % (host, instance.uuid[:8]))
    providers.set_inventories(ctxt, rp, {'VCPU': {
        'total': 4, 'reserved': 0, 'min_unit': 1, 'max_unit': 4,
        'step_size': 1, 'allocation_ratio': 1.0}})
    allocations.claim(ctxt, instance.uuid, 'p1', 'u1', {rp: {'VCPU': 1}})
    return instance, rp


def test_builds_on_a_down_compute_end_in_error_at_once(ctxt, conf):
    _compute(ctxt, 'gone', up=False, conf=conf)
    _compute(ctxt, 'alive', up=True, conf=conf)
    lost, lost_rp = _building(ctxt, 'gone')
    running, _ = _building(ctxt, 'gone', task_state=None, vm_state='active')
    fine, _ = _building(ctxt, 'alive')
    assert timeouts.fail_builds_on_down_computes(ctxt) == {lost_rp}
    lost = objects.Instance.get_by_uuid(ctxt, lost.uuid,
                                        expected_attrs=['fault'])
    assert (lost.vm_state, lost.task_state) == ('error', None)
    assert 'compute gone is down' in lost.fault.message
    assert 'spawning' in lost.fault.message
    assert allocations.get_for_consumer(ctxt, lost.uuid) == {}
    assert objects.Instance.get_by_uuid(ctxt, running.uuid).vm_state == \
        'active'
    assert objects.Instance.get_by_uuid(ctxt, fine.uuid).vm_state == \
        'building'
    # Nothing left to do the second time.
    assert timeouts.fail_builds_on_down_computes(ctxt) == set()



def test_a_build_is_failed_in_one_transaction(ctxt, conf, monkeypatch):
    """Whoever sees the build in ERROR sees its allocations gone: the
    state, fault, quota and allocations are written together, so a
    failure at the last step leaves the build as it was."""
    _compute(ctxt, 'gone', up=False, conf=conf)
    lost, lost_rp = _building(ctxt, 'gone')

    def broken(session, consumer):
        raise RuntimeError('placement write failed')
    monkeypatch.setattr(allocations, 'remove_in_session', broken)
    with pytest.raises(RuntimeError):
        timeouts.fail_builds_on_down_computes(ctxt)
    kept = objects.Instance.get_by_uuid(ctxt, lost.uuid,
                                        expected_attrs=['fault'])
    assert (kept.vm_state, kept.task_state) == ('building', 'spawning')
    assert kept.fault is None
    assert allocations.get_for_consumer(ctxt, lost.uuid) == {
        lost_rp: {'VCPU': 1}}
    monkeypatch.undo()
    assert timeouts.fail_builds_on_down_computes(ctxt) == {lost_rp}

def test_actions_on_a_down_compute_are_reset_at_once(ctxt, conf):
    """A reboot on a compute that died: the task state is cleared (the
    vm_state kept) now, not after task_timeout; the same action on a
    compute that is up keeps its task state."""
    _compute(ctxt, 'gone', up=False, conf=conf)
    _compute(ctxt, 'alive', up=True, conf=conf)
    lost, _ = _building(ctxt, 'gone', task_state='rebooting',
                        vm_state='active')
    fine, _ = _building(ctxt, 'alive', task_state='rebooting',
                        vm_state='active')
    assert timeouts.reset_stuck_tasks(ctxt, 600) == [lost.uuid]
    lost = objects.Instance.get_by_uuid(ctxt, lost.uuid,
                                        expected_attrs=['fault'])
    assert (lost.vm_state, lost.task_state) == ('active', None)
    assert 'its compute gone went down' in lost.fault.message
    assert objects.Instance.get_by_uuid(ctxt, fine.uuid).task_state == \
        'rebooting'
    assert timeouts.reset_stuck_tasks(ctxt, 600) == []
