"""Deleting a service (DELETE /os-services/{id}) on every backend: a
compute's host leaves its aggregates and loses its nodes and their
providers in one transaction, refused while it hosts servers or moves."""

from oslo_utils import uuidutils
import pytest
import sqlalchemy as sa

from nova_lite.conductor.tasks import provision
from nova_lite import context as nl_context
from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import exception
from nova_lite import objects
from nova_lite.placement import allocations
from nova_lite.placement import providers
from tests.functional.db.test_aggregates_groups import _flavor
from tests.functional.db.test_aggregates_groups import _node
from tests.functional.db.test_aggregates_groups import _spec
from tests.functional.db.test_aggregates_groups import _template
from tests.functional.db.test_aggregates_groups import COMPUTE


@pytest.fixture
def ctxt(database):
    return nl_context.get_admin_context()


@db_api.reader
def _count(context, model, **filters):
    return context.session.scalar(sa.select(sa.func.count()).select_from(
        model).filter_by(**filters))


def _compute(ctxt, host):
    return objects.Service.get_by_host_and_binary(ctxt, host, COMPUTE)


def test_delete_a_compute_and_its_records(ctxt):
    gone = _node(ctxt, 'h1', 'h1-a')
    _node(ctxt, 'h1', 'h1-b')
    kept = _node(ctxt, 'h2')
    aggregate = objects.Aggregate(ctxt, name='agg')
    aggregate.create()
    aggregate.add_host('h1')
    aggregate.add_host('h2')
    providers.set_traits(ctxt, gone.uuid, {'CUSTOM_X'})
    _compute(ctxt, 'h1').destroy()
    with pytest.raises(exception.ServiceNotFound):
        _compute(ctxt, 'h1')
    assert [n.host for n in objects.ComputeNodeList.get_all(ctxt)] == ['h2']
    assert _count(ctxt, models.ResourceProvider) == 1
    assert _count(ctxt, models.Inventory, resource_provider_id=None) == 0
    assert _count(ctxt, models.ResourceProviderTrait) == 0
    assert objects.Aggregate.get_by_id(ctxt, aggregate.id).hosts == ['h2']
    assert providers.get_aggregates(ctxt, kept.uuid) == {aggregate.uuid}
    _compute(ctxt, 'h2')


def test_a_compute_with_servers_stays(ctxt):
    node = _node(ctxt, 'h1')
    flavor = _flavor(ctxt)
    [instance] = provision.provision_instances(
        ctxt, _template(ctxt, flavor), _spec(flavor), 1, 1)
    instance.host, instance.node = 'h1', node.hypervisor_hostname
    instance.save()
    allocations.claim(ctxt, instance.uuid, 'p1', 'u1',
                      {node.uuid: {'VCPU': 1}})
    with pytest.raises(exception.ServiceHasServers):
        _compute(ctxt, 'h1').destroy()
    assert len(objects.ComputeNodeList.get_all(ctxt)) == 1
    assert providers.get_inventories(ctxt, node.uuid)
    instance.destroy()
    _compute(ctxt, 'h1').destroy()
    assert len(objects.ComputeNodeList.get_all(ctxt)) == 0


def test_a_compute_with_moves_stays(ctxt):
    _node(ctxt, 'h1')
    migration = objects.Migration(
        ctxt, uuid=uuidutils.generate_uuid(), source_compute='h2',
        dest_compute='h1', status='migrating', migration_type='migration',
        instance_uuid='c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30')
    migration.create()
    with pytest.raises(exception.ServiceHasMoves):
        _compute(ctxt, 'h1').destroy()
    migration.status = 'confirmed'
    migration.save()
    _compute(ctxt, 'h1').destroy()


def test_other_services_just_go(ctxt):
    service = objects.Service(ctxt, host='ctl', binary='nova-lite-conductor',
                              topic='conductor')
    service.create()
    objects.Service.get_by_uuid(ctxt, service.uuid).destroy()
    with pytest.raises(exception.ServiceNotFound):
        objects.Service.get_by_uuid(ctxt, service.uuid)
