"""Small query helpers the object modules share.

Each takes the session of the caller's enginefacade transaction, so the
caller's ``@db_api.reader`` / ``@db_api.writer`` decides the transaction.
"""

from oslo_db import exception as db_exc
import sqlalchemy as sa
from sqlalchemy import orm


def first_or_raise(session, model, not_found, joined=None, **filters):
    """The first row of ``model`` matching ``filters``.

    ``not_found`` is called with the filters to build the exception raised
    when there is none. ``joined`` names a relationship to load in the
    same statement (one round trip instead of two for a single row).
    """
    query = sa.select(model).filter_by(**filters)
    if joined is None:
        row = session.scalars(query).first()
    else:
        row = session.scalars(
            query.options(orm.joinedload(joined))).unique().first()
    if row is None:
        raise not_found(filters)
    return row


def insert(session, row, on_duplicate):
    """Add ``row`` and flush it; a unique-constraint violation becomes the
    exception ``on_duplicate(error)`` returns."""
    session.add(row)
    try:
        session.flush()
    except db_exc.DBDuplicateEntry as error:
        raise on_duplicate(error)
    return row


def update_and_reload(session, model, row_id, values):
    """UPDATE the row with primary key ``row_id``; return it re-read."""
    session.execute(sa.update(model).where(model.id == row_id)
                    .values(**values))
    return session.get(model, row_id, populate_existing=True)


def describe(filters):
    """'key=value, ...' for a not-found message."""
    return ', '.join('%s=%s' % item for item in sorted(filters.items()))
