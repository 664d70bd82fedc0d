"""nova-lite-manage placement audit and the upgrade check that includes
it, on every backend: what is found, what --fix does, and the commands'
exit codes."""

import os
import subprocess
import sys

from oslo_utils import uuidutils
import pytest
import sqlalchemy as sa

from nova_lite import context as nl_context
from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import objects
from nova_lite.placement import allocations
from nova_lite.placement import audit
from nova_lite.placement import providers

BIN = os.path.dirname(sys.executable)
INV = {'reserved': 0, 'min_unit': 1, 'step_size': 1,
       'allocation_ratio': 1.0}


@pytest.fixture
def ctxt(database):
    return nl_context.get_admin_context()


def _provider(ctxt, name, vcpus=8):
    uuid = uuidutils.generate_uuid()
    providers.ensure_provider(ctxt, uuid, name)
    providers.set_inventories(ctxt, uuid, {
        'VCPU': dict(INV, total=vcpus, max_unit=vcpus),
        'MEMORY_MB': dict(INV, total=8192, max_unit=8192),
        'DISK_GB': dict(INV, total=100, max_unit=100)})
    return uuid


def _flavor(ctxt, vcpus=1):
    flavor = objects.Flavor(ctxt, flavorid='f%d' % vcpus, name='f%d' % vcpus,
                            memory_mb=512, vcpus=vcpus, root_gb=1, swap=100)
    flavor.create()
    return flavor


def _instance(ctxt, flavor, node=None, provider=None, quota_released=False,
              vm_state='active'):
    instance = objects.Instance(
        ctxt, uuid=uuidutils.generate_uuid(), project_id='p1',
        user_id='u1', display_name='vm',
        flavor=flavor, image_ref='img', vm_state=vm_state, task_state=None,
        host='compute1' if node else None, node=node,
        compute_node_uuid=provider)
    instance.create()
    if quota_released:
        _update(ctxt, instance.uuid, quota_released=True)
    return instance


def _setup(ctxt):
    """node1 with: a healthy instance, one missing its allocation, a
    failed build that holds nothing, an orphan and a deleted instance's
    leftover allocation."""
    node = _provider(ctxt, 'node1')
    flavor = _flavor(ctxt)
    healthy = _instance(ctxt, flavor, 'node1', node)
    allocations.claim(ctxt, healthy.uuid, 'p1', 'u1', {node: {'VCPU': 1}})
    missing = _instance(ctxt, flavor, 'node1', node)
    _instance(ctxt, flavor, 'node1', node, quota_released=True,
              vm_state='error')
    orphan = uuidutils.generate_uuid()
    allocations.claim(ctxt, orphan, 'p2', 'u2', {node: {'VCPU': 2}})
    gone = _instance(ctxt, flavor, 'node1', node)
    allocations.claim(ctxt, gone.uuid, 'p1', 'u1', {node: {'VCPU': 1}})
    _update(ctxt, gone.uuid, deleted=models.Instance.id)
    return node, healthy, missing, orphan, gone


@db_api.writer
def _update(context, uuid, **values):
    """Write a row as the code under test would find it (a deleted
    instance whose allocation stayed behind, a failed build)."""
    context.session.execute(sa.update(models.Instance).where(
        models.Instance.uuid == uuid).values(**values))


def test_audit_finds_orphans_and_missing(ctxt):
    node, healthy, missing, orphan, gone = _setup(ctxt)
    found = audit.find(ctxt)
    assert sorted(o.consumer for o in found.orphans) == sorted(
        [orphan, gone.uuid])
    by_consumer = {o.consumer: o for o in found.orphans}
    assert by_consumer[orphan].usage == {node: {'VCPU': 2}}
    assert by_consumer[orphan].project_id == 'p2'
    assert [m.instance for m in found.missing] == [missing.uuid]
    assert found.missing[0].provider == node
    # Swap of 100 MiB takes a whole GiB of disk, as the scheduler claims.
    assert found.missing[0].resources == {'VCPU': 1, 'MEMORY_MB': 512,
                                          'DISK_GB': 2}


def test_fix_removes_orphans_and_allocates_the_missing(ctxt):
    node, healthy, missing, orphan, gone = _setup(ctxt)
    results = list(audit.fix(ctxt, audit.find(ctxt)))
    assert [reason for _finding, reason in results] == [None, None, None]
    assert allocations.get_for_consumer(ctxt, orphan) == {}
    assert allocations.get_for_consumer(ctxt, gone.uuid) == {}
    assert allocations.get_for_consumer(ctxt, missing.uuid) == {
        node: {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 2}}
    assert allocations.get_for_consumer(ctxt, healthy.uuid) == {
        node: {'VCPU': 1}}
    again = audit.find(ctxt)
    assert again.orphans == [] and again.missing == []


def test_fix_never_overcommits_and_never_doubles(ctxt):
    node = _provider(ctxt, 'small', vcpus=2)
    big = _instance(ctxt, _flavor(ctxt, vcpus=4), 'small', node)
    taken = _instance(ctxt, _flavor(ctxt, vcpus=1), 'small', node)
    findings = audit.find(ctxt)
    # Allocated meanwhile (a concurrent heal): not allocated twice.
    allocations.claim(ctxt, taken.uuid, 'p1', 'u1', {node: {'VCPU': 1}})
    reasons = dict((f.instance, r) for f, r in audit.fix(ctxt, findings))
    assert 'VCPU' in reasons[big.uuid]
    assert 'changed since the audit' in reasons[taken.uuid]
    assert allocations.get_for_consumer(ctxt, big.uuid) == {}
    assert allocations.get_for_consumer(ctxt, taken.uuid) == {
        node: {'VCPU': 1}}


def test_moves_in_progress_keep_their_allocations(ctxt):
    """A migration holds the source host of a move until it is confirmed,
    reverted or fails; then what it still holds is an orphan."""
    node = _provider(ctxt, 'node1')
    instance = _instance(ctxt, _flavor(ctxt), 'node1', node)
    allocations.claim(ctxt, instance.uuid, 'p1', 'u1', {node: {'VCPU': 1}})
    moving, done = uuidutils.generate_uuid(), uuidutils.generate_uuid()
    for consumer in (moving, done):
        allocations.claim(ctxt, consumer, 'p1', 'u1', {node: {'VCPU': 1}})
    _migration(ctxt, moving, instance.uuid, 'finished')
    _migration(ctxt, done, instance.uuid, 'confirmed')
    found = audit.find(ctxt)
    assert [o.consumer for o in found.orphans] == [done]


@db_api.writer
def _migration(context, uuid, instance_uuid, status):
    context.session.execute(sa.insert(models.Migration).values(
        uuid=uuid, instance_uuid=instance_uuid, status=status,
        migration_type='resize', source_compute='compute1',
        dest_compute='compute2', project_id='p1', user_id='u1'))


def _run(database, tmp_path, *argv):
    conf = tmp_path / 'nova_lite.conf'
    conf.write_text('[database]\nconnection = %s\n' % database.url)
    return subprocess.run([os.path.join(BIN, argv[0]), '--config-file',
                           str(conf), *argv[1:]], capture_output=True,
                          text=True, timeout=120)


def test_commands_report_fix_and_exit_codes(ctxt, database, tmp_path):
    if database.backend == 'mysql':
        pytest.skip('the commands are backend-neutral; PostgreSQL and '
                    'SQLite run them')
    _node, _healthy, missing, orphan, _gone = _setup(ctxt)
    check = _run(database, tmp_path, 'nova-lite-status', 'upgrade', 'check')
    assert 'Placement allocations' in check.stdout, check.stderr
    assert '2 orphaned allocation(s) and 1 instance(s)' in check.stdout
    audit_run = _run(database, tmp_path, 'nova-lite-manage', 'placement',
                     'audit')
    assert audit_run.returncode == 3, audit_run.stderr
    assert 'orphaned allocation: consumer %s' % orphan in audit_run.stdout
    assert 'missing allocation: instance %s' % missing.uuid in \
        audit_run.stdout
    fixed = _run(database, tmp_path, 'nova-lite-manage', 'placement',
                 'audit', '--fix')
    assert fixed.returncode == 4, fixed.stdout + fixed.stderr
    clean = _run(database, tmp_path, 'nova-lite-manage', 'placement',
                 'audit')
    assert clean.returncode == 0, clean.stdout
    check = _run(database, tmp_path, 'nova-lite-status', 'upgrade', 'check')
    assert 'Allocations match the instances' in check.stdout
