"""Deleting a service, and with a compute its host's records.

Runs in the conductor; the API's DELETE /os-services/{id} reaches it
through the remotable ``Service.destroy``. One transaction, with the
service row locked: a compute service is refused (409) while its host
has servers (not deleted) or moves in progress from or to it, as in
Nova; otherwise its host leaves every host aggregate, and its compute
nodes, their resource providers (with any nested ones) and everything
recorded against those providers go with the service row. The writes
note the host's nodes and the aggregates, so the schedulers drop them
(``placement.changes``).
"""

import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import exception
from nova_lite.objects import service as service_obj
from nova_lite.placement import allocations
from nova_lite.placement import changes

# Rows that hang off a resource provider, deleted before it.
_PROVIDER_CHILDREN = (models.Allocation, models.Inventory,
                      models.ResourceProviderTrait,
                      models.ResourceProviderAggregate)


def _check_idle(session, host):
    instances = session.scalar(sa.select(sa.func.count()).where(
        models.Instance.host == host, models.Instance.deleted == 0))
    if instances:
        raise exception.ServiceHasServers()
    migration = models.Migration
    moves = session.scalar(sa.select(sa.func.count()).where(
        migration.deleted == 0,
        sa.or_(migration.source_compute == host,
               migration.dest_compute == host),
        migration.status.not_in(allocations.MIGRATION_DONE_STATUSES)))
    if moves:
        raise exception.ServiceHasMoves()


def _leave_aggregates(session, host):
    links = session.scalars(sa.select(models.AggregateHost).where(
        models.AggregateHost.host == host)).all()
    uuids = session.scalars(sa.select(models.Aggregate.uuid).where(
        models.Aggregate.id.in_([link.aggregate_id for link in links]))
    ).all()
    for link in links:
        session.delete(link)
    changes.note(session, aggregates=uuids)


def _delete_providers(session, node_uuids):
    provider = models.ResourceProvider
    roots = session.scalars(sa.select(provider.id).where(
        provider.uuid.in_(node_uuids))).all()
    tree = session.scalars(sa.select(provider.id).where(
        sa.or_(provider.root_provider_id.in_(roots),
               provider.id.in_(roots)))).all()
    for model in _PROVIDER_CHILDREN:
        session.execute(sa.delete(model).where(
            model.resource_provider_id.in_(tree)))
    # Children before parents: clear the self-references first.
    session.execute(sa.update(provider).where(provider.id.in_(tree)).values(
        parent_provider_id=None, root_provider_id=None))
    session.execute(sa.delete(provider).where(provider.id.in_(tree)))


@db_api.writer
def _delete_in_db(context, service_id):
    session = context.session
    row = session.scalars(sa.select(models.Service).where(
        models.Service.id == service_id).with_for_update()).first()
    if row is None:
        raise exception.ServiceNotFound(service_id=service_id)
    if row.binary == service_obj.COMPUTE_BINARY:
        _check_idle(session, row.host)
        _leave_aggregates(session, row.host)
        node_uuids = session.scalars(sa.select(models.ComputeNode.uuid).where(
            models.ComputeNode.host == row.host)).all()
        changes.note(session, node_uuids)
        _delete_providers(session, node_uuids)
        session.execute(sa.delete(models.ComputeNode).where(
            models.ComputeNode.host == row.host))
    session.execute(sa.delete(models.ComputeNode).where(
        models.ComputeNode.service_id == service_id))
    session.execute(sa.delete(models.Service).where(
        models.Service.id == service_id))


def delete(context, service):
    """Delete ``service`` (see the module). Raises ServiceNotFound (404),
    ServiceHasServers or ServiceHasMoves (409)."""
    _delete_in_db(context, service.id)
