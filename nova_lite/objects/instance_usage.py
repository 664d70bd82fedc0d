"""The instances that ran during a period, for usage reports.

A plain reader, not a versioned object: only the API's
os-simple-tenant-usage asks, and it has the database.
"""

import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite.objects import instance as instance_obj


@db_api.reader
def get_active_by_window(context, begin, end, project_id=None):
    """Instances (deleted ones too) launched before ``end`` and not
    terminated before ``begin``, oldest launch first; of ``project_id``
    only when given. Instances never launched used nothing and are left
    out."""
    model = models.Instance
    query = sa.select(model).where(
        model.launched_at.is_not(None), model.launched_at < end,
        sa.or_(model.terminated_at.is_(None), model.terminated_at > begin))
    if project_id is not None:
        query = query.where(model.project_id == project_id)
    query = query.order_by(model.launched_at, model.id)
    return [instance_obj.Instance._from_db_object(
                context, instance_obj.Instance(), row)
            for row in context.session.scalars(query)]
