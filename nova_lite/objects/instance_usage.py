"""The instances that ran during a period, for usage reports.

A plain reader, not a versioned object: only the API's
os-simple-tenant-usage asks, and it has the database.
"""

import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import exception
from nova_lite.objects import instance as instance_obj


def _after_marker(context, query, marker, project_id):
    """``query`` narrowed to the instances after ``marker`` (a uuid) in
    launch order; MarkerNotFound (400) for an instance that is unknown,
    of another project than ``project_id`` or never launched."""
    model = models.Instance
    lookup = sa.select(model.launched_at, model.id).where(
        model.uuid == marker, model.launched_at.is_not(None))
    if project_id is not None:
        lookup = lookup.where(model.project_id == project_id)
    found = context.session.execute(lookup).first()
    if found is None:
        raise exception.MarkerNotFound(marker=marker)
    return query.where(sa.or_(
        model.launched_at > found.launched_at,
        sa.and_(model.launched_at == found.launched_at,
                model.id > found.id)))


@db_api.reader
def get_active_by_window(context, begin, end, project_id=None, limit=None,
                         marker=None):
    """Instances (deleted ones too) launched before ``end`` and not
    terminated before ``begin``, oldest launch first; of ``project_id``
    only when given; at most ``limit``, after the instance ``marker``
    (a uuid; MarkerNotFound if it is not one of those that could be
    listed). Instances never launched used nothing and are left out."""
    model = models.Instance
    query = sa.select(model).where(
        model.launched_at.is_not(None), model.launched_at < end,
        sa.or_(model.terminated_at.is_(None), model.terminated_at > begin))
    if project_id is not None:
        query = query.where(model.project_id == project_id)
    if marker is not None:
        query = _after_marker(context, query, marker, project_id)
    query = query.order_by(model.launched_at, model.id)
    if limit is not None:
        query = query.limit(limit)
    return [instance_obj.Instance._from_db_object(
                context, instance_obj.Instance(), row)
            for row in context.session.scalars(query)]
