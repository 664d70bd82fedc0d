"""A compute service's disabled flag, mirrored into placement.

Runs in the conductor. The API's os-services handlers reach it through
the remotable ``Service.save`` (object_action brings it here); a
compute's provider report calls ``sync_disabled_trait`` directly
(``conductor.provider_report``). The Service object only writes its row.

COMPUTE_STATUS_DISABLED on the providers of a host's compute nodes says
whether its compute service is disabled, so the scheduler's prefilter
stops (or resumes) using them at once. Two steps: the service row is
written, then the trait synced in a transaction that reads the service
row FOR UPDATE, so a concurrent disable or enable waits for it and then
syncs again itself: whatever the interleaving, the last writer saw the
last state. A failed sync leaves the flag written; the compute's next
report syncs the trait.
"""

import os_traits
import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import exception
from nova_lite.objects import service as service_obj
from nova_lite.placement import generation
from nova_lite.placement import providers


@generation.retry_on_conflict
@db_api.writer
def sync_disabled_trait(context, host, node_uuids=None):
    """Make COMPUTE_STATUS_DISABLED on the providers of ``host``'s compute
    nodes (those of ``node_uuids`` only, when given) say whether its
    compute service is disabled; return the provider uuids changed."""
    session = context.session
    disabled = bool(session.scalar(
        sa.select(models.Service.disabled).where(
            models.Service.host == host,
            models.Service.binary == service_obj.COMPUTE_BINARY)
        .with_for_update()))
    wanted = {os_traits.COMPUTE_STATUS_DISABLED} if disabled else set()
    changed = []
    if node_uuids is None:
        node_uuids = session.scalars(sa.select(
            models.ComputeNode.uuid).where(
            models.ComputeNode.host == host)).all()
    for uuid in node_uuids:
        try:
            moved = providers.set_traits_in_session(
                session, uuid, wanted,
                owned={os_traits.COMPUTE_STATUS_DISABLED})
        except exception.ResourceProviderNotFound:
            continue
        if moved:
            changed.append(uuid)
    return changed


def save(context, service):
    """Write ``service``'s changes; if that changed a compute service's
    disabled flag, sync its providers' trait. Returns the provider uuids
    whose trait moved (the service and trait writes tell the schedulers
    about the host's nodes: ``placement.changes``)."""
    values = service._persist_changes()
    if ('disabled' in values
            and service.binary == service_obj.COMPUTE_BINARY):
        return sync_disabled_trait(context, service.host)
    return []
