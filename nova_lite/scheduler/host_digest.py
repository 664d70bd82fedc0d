"""What a scheduler compares to catch up with changes it was not told of.

Every change to a provider moves its generation, and every write of a
compute node its ``updated_at``: one row of (node uuid, node updated_at,
provider generation) per schedulable node is enough to tell which host
states are stale, without reading the states themselves. The host
manager compares it with what it holds, off the decision path, and
re-reads only the hosts that differ (``HostManager.catch_up``).

The compute services are caught up by ``host_services``; the host
aggregates, few, are compared whole.
"""

import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models


@db_api.reader
def get_digest(context):
    """{compute node uuid: (node updated_at or None, provider generation)}
    of every compute node that has a resource provider."""
    node = models.ComputeNode
    rp = models.ResourceProvider
    rows = context.session.execute(
        sa.select(node.uuid, node.updated_at, rp.generation)
        .join(rp, rp.uuid == node.uuid)).all()
    return {row[0]: (row[1], row[2]) for row in rows}
