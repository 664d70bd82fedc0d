"""A server deleted mid-move, on every backend: the records' delete (the
API's when the destination compute is down) frees both hosts and settles
the migration in the same transaction, so no allocation is left for the
orphan sweep and no migration of a deleted server looks in progress."""

from oslo_utils import uuidutils
import pytest

from nova_lite.conductor.tasks import move_records
from nova_lite import context as nl_context
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.placement import allocations
from nova_lite.placement import providers
from nova_lite.placement import summaries

INV = {'total': 8, 'reserved': 0, 'min_unit': 1, 'max_unit': 8,
       'step_size': 1, 'allocation_ratio': 1.0}


@pytest.fixture
def ctxt(database):
    return nl_context.RequestContext(user_id='u1', project_id='p1',
                                     is_admin=True, overwrite=False)


def _provider(ctxt, name):
    uuid = uuidutils.generate_uuid()
    providers.ensure_provider(ctxt, uuid, name)
    providers.set_inventories(ctxt, uuid, {'VCPU': dict(INV)})
    return uuid


def _moved(ctxt, status, migration_type='resize'):
    """An instance moved from host1 to host2: the migration holds the
    source, the instance the destination (as move_records writes it)."""
    source, dest = _provider(ctxt, 'n1'), _provider(ctxt, 'n2')
    flavor = objects.Flavor(ctxt, flavorid=uuidutils.generate_uuid(),
                            name='f-' + uuidutils.generate_uuid(),
                            memory_mb=512, vcpus=1, root_gb=1)
    flavor.create()
    instance = objects.Instance(
        ctxt, uuid=uuidutils.generate_uuid(), project_id='p1', user_id='u1',
        display_name='vm', flavor=flavor, image_ref='img', host='host1',
        node='n1', metadata={}, vm_state=fields.VMState.ACTIVE,
        task_state=fields.TaskState.RESIZE_PREP)
    instance.create()
    allocations.claim(ctxt, instance.uuid, 'p1', 'u1',
                      {source: {'VCPU': 1}})
    migration = move_records.start_move(ctxt, instance, flavor,
                                        migration_type, None)
    allocations.claim(ctxt, instance.uuid, 'p1', 'u1', {dest: {'VCPU': 2}})
    migration.status = status
    migration.save()
    return instance, migration, source, dest


def _used(ctxt, uuid):
    return summaries.get_summaries(ctxt, [uuid])[uuid].usages.get('VCPU', 0)


@pytest.mark.parametrize('status, settled', [
    ('finished', 'confirmed'), ('confirming', 'confirmed'),
    ('pre-migrating', 'error'), ('migrating', 'error'),
    ('post-migrating', 'error'), ('reverting', 'error')])
def test_a_delete_mid_move_frees_both_hosts_and_settles_the_migration(
        ctxt, status, settled):
    instance, migration, source, dest = _moved(ctxt, status)
    assert (_used(ctxt, source), _used(ctxt, dest)) == (1, 2)
    released = instance.destroy()
    assert sorted(released) == sorted([source, dest])
    assert (_used(ctxt, source), _used(ctxt, dest)) == (0, 0)
    assert allocations.get_for_consumer(ctxt, migration.uuid) == {}
    assert allocations.get_for_consumer(ctxt, instance.uuid) == {}
    assert objects.Migration.get_by_id(ctxt, migration.id).status == settled
    assert allocations.orphaned_consumers(
        ctxt, objects.Migration.get_by_id(ctxt, migration.id).updated_at
        .replace(year=2100)) == []


def test_a_settled_migration_is_left_as_it_was(ctxt):
    instance, migration, source, dest = _moved(ctxt, 'reverted')
    # A settled move holds nothing of its own any more.
    allocations.remove(ctxt, migration.uuid)
    assert instance.destroy() == [dest]
    assert objects.Migration.get_by_id(ctxt, migration.id).status == \
        'reverted'


def test_a_done_evacuation_keeps_its_status_for_its_source(ctxt):
    # Its source, when it comes back, removes its copy and completes it.
    instance, migration, source, dest = _moved(ctxt, 'done', 'evacuation')
    instance.destroy()
    assert (_used(ctxt, source), _used(ctxt, dest)) == (0, 0)
    assert objects.Migration.get_by_id(ctxt, migration.id).status == 'done'
