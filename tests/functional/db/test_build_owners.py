"""Build owners and lost builds (conductor/tasks/ownership.py,
lost_builds.py), on every backend."""

import datetime
import json
import os
import subprocess
from unittest import mock

from oslo_utils import uuidutils
import pytest
import sqlalchemy as sa

from nova_lite.conductor.tasks import lost_builds
from nova_lite.conductor.tasks import ownership
from nova_lite.conductor.tasks import provision
from nova_lite import context as nl_context
from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import objects
from nova_lite.placement import allocations
from nova_lite.placement import providers
from tests.unit.compute import fakes


@pytest.fixture
def ctxt(database, conf):
    conf.config(host='here')
    ownership._enabled_cache.update(until=0.0, value=False)
    ctxt = nl_context.get_admin_context()
    _conductor(ctxt, 'here')
    yield ctxt
    ownership._enabled_cache.update(until=0.0, value=False)


def _conductor(ctxt, host, up=True, version=None):
    svc = objects.Service(ctxt, host=host, binary='nova-lite-conductor',
                          topic='conductor')
    svc.create()
    svc.heartbeat()
    values = {}
    if version is not None:
        values['version'] = version
    if not up:
        values['last_seen_up'] = (
            datetime.datetime.now(datetime.timezone.utc).replace(
                tzinfo=None) - datetime.timedelta(hours=1))
    if values:
        _update(ctxt, models.Service, models.Service.host == host, values)


@db_api.writer
def _update(context, model, where, values):
    context.session.execute(sa.update(model).where(where).values(**values))


@db_api.reader
def _owner(context, uuid):
    return context.session.scalar(sa.select(models.Instance.build_owner)
                                  .where(models.Instance.uuid == uuid))


def _building(ctxt, owner, age=0):
    flavor = objects.Flavor(ctxt, flavorid=uuidutils.generate_uuid(),
                            name=uuidutils.generate_uuid(), memory_mb=64,
                            vcpus=1, root_gb=1)
    flavor.create()
    instance = objects.Instance(
        ctxt, uuid=uuidutils.generate_uuid(), project_id='p1', user_id='u1',
        flavor=flavor, vm_state='building', task_state='scheduling')
    instance.create()
    values = {'build_owner': owner}
    if age:
        values['updated_at'] = (
            datetime.datetime.now(datetime.timezone.utc).replace(
                tzinfo=None) - datetime.timedelta(seconds=age))
    _update(ctxt, models.Instance, models.Instance.uuid == instance.uuid,
            values)
    return instance


def _dead_local_owner():
    proc = subprocess.Popen(['sleep', '30'])
    owner = '%d/%d@here' % (proc.pid, ownership._process_start(proc.pid))
    proc.kill()
    proc.wait()
    return owner


def test_provisioning_names_this_process_as_the_owner(ctxt, monkeypatch):
    monkeypatch.setattr(ownership, 'enabled', lambda context: True)
    flavor = objects.Flavor(ctxt, flavorid='1', name='m1', memory_mb=64,
                            vcpus=1, root_gb=1)
    flavor.create()
    template = objects.Instance(ctxt, project_id='p1', user_id='u1',
                                display_name='vm', flavor=flavor,
                                vm_state='building',
                                task_state='scheduling', metadata={})
    spec = objects.RequestSpec(ctxt, project_id='p1', user_id='u1',
                               flavor=flavor, num_instances=2)
    made, owned = provision.provision(ctxt, template, spec, 2, 2)
    assert owned
    assert [_owner(ctxt, i.uuid) for i in made] == [ownership.token()] * 2


def test_this_process_and_dead_ones(ctxt):
    mine = ownership.token()
    assert mine.startswith('%d/' % os.getpid()) and mine.endswith('@here')
    assert not ownership.is_gone(ctxt, mine)
    assert ownership.is_gone(ctxt, _dead_local_owner())
    # The same pid, started at another time: a newer process.
    pid, start, _ = ownership._parse(mine)
    assert ownership.is_gone(ctxt, '%d/%d@here' % (pid, start + 1))
    assert not ownership.is_gone(ctxt, 'garbage')


def test_another_host_is_gone_when_its_service_is_down(ctxt):
    _conductor(ctxt, 'alive')
    _conductor(ctxt, 'dead', up=False)
    assert not ownership.is_gone(ctxt, '1/1@alive')
    assert ownership.is_gone(ctxt, '1/1@dead')
    assert ownership.is_gone(ctxt, '1/1@never-registered')


def test_disabled_while_an_older_conductor_runs(ctxt):
    assert ownership.enabled(ctxt)
    _conductor(ctxt, 'old', version=1)
    ownership._enabled_cache.update(until=0.0)
    assert not ownership.enabled(ctxt)


def test_take_hand_off_and_a_late_cast(ctxt):
    provisioner = '1/1@elsewhere'
    inst = _building(ctxt, provisioner)
    assert ownership.take_fresh(ctxt, inst.uuid) is True
    assert _owner(ctxt, inst.uuid) == ownership.token()
    assert ownership.hand_off(ctxt, inst.uuid, 'c1')
    assert _owner(ctxt, inst.uuid) == '-c1'
    # The same cast again (redelivered) finds it with a compute.
    assert ownership.take_fresh(ctxt, inst.uuid) is False
    # A compute hands it back for a reschedule.
    assert ownership.take_handed_back(ctxt, inst.uuid)
    assert _owner(ctxt, inst.uuid) == ownership.token()


def test_an_untracked_build_is_built_as_before(ctxt):
    inst = _building(ctxt, None)
    assert ownership.take_fresh(ctxt, inst.uuid) == 'untracked'
    assert _owner(ctxt, inst.uuid) is None


def test_a_cast_after_a_redrive_is_dropped(ctxt):
    dead = _dead_local_owner()
    inst = _building(ctxt, dead)
    assert ownership.find_lost(ctxt, grace=30) == [(inst.uuid, dead)]
    assert ownership.claim_lost(ctxt, inst.uuid, dead)
    # A second conductor racing for it loses.
    assert not ownership.claim_lost(ctxt, inst.uuid, dead)
    assert ownership.take_fresh(ctxt, inst.uuid) is False
    assert _owner(ctxt, inst.uuid) == '+' + ownership.token()


def test_what_is_lost(ctxt):
    _conductor(ctxt, 'alive')
    dead = _building(ctxt, _dead_local_owner())
    _building(ctxt, '1/1@alive')
    _building(ctxt, ownership.HANDED_OFF)
    _building(ctxt, '-c1', age=60)
    _building(ctxt, None)
    fresh_mine = _building(ctxt, ownership.token())
    old_mine = _building(ctxt, ownership.token(), age=60)
    busy_mine = _building(ctxt, ownership.token(), age=60)
    with ownership.working([busy_mine.uuid]):
        lost = {uuid for uuid, _ in ownership.find_lost(ctxt, grace=30)}
    assert lost == {dead.uuid, old_mine.uuid}
    assert fresh_mine.uuid not in lost


def _provider(ctxt, name):
    rp = uuidutils.generate_uuid()
    providers.ensure_provider(ctxt, rp, name)
    providers.set_inventories(ctxt, rp, {'VCPU': {
        'total': 4, 'reserved': 0, 'min_unit': 1, 'max_unit': 4,
        'step_size': 1, 'allocation_ratio': 1.0}})
    return rp


def test_redrive_cleans_the_claim_and_builds_once(ctxt):
    dead = _dead_local_owner()
    inst = _building(ctxt, dead)
    spec = objects.RequestSpec(ctxt, instance_uuid=inst.uuid,
                               num_instances=1)
    spec.create()
    stale_rp, new_rp = _provider(ctxt, 'stale'), _provider(ctxt, 'new')
    allocations.claim(ctxt, inst.uuid, 'p1', 'u1', {stale_rp: {'VCPU': 1}})

    def select(context, request_spec, uuids, return_alternates, timeout=None):
        allocations.claim(ctxt, inst.uuid, 'p1', 'u1', {new_rp: {'VCPU': 1}})
        selection = fakes.selection('c1', 'c1-n0')
        selection.allocation_request = json.dumps(
            {'allocations': {new_rp: {'resources': {'VCPU': 1}}}})
        return [[selection]]

    scheduler_api, compute_api = mock.Mock(), mock.Mock()
    scheduler_api.select_destinations.side_effect = select
    assert lost_builds.redrive(ctxt, scheduler_api, compute_api, 30) == [
        inst.uuid]
    assert compute_api.build_and_run_instance.call_count == 1
    assert allocations.get_for_consumer(ctxt, inst.uuid) == {
        new_rp: {'VCPU': 1}}
    assert _owner(ctxt, inst.uuid) == '-c1'
    # Nothing lost any more; a second conductor finds nothing.
    assert lost_builds.redrive(ctxt, scheduler_api, compute_api, 30) == []
