"""Small query helpers the object modules share.

Each takes the session of the caller's enginefacade transaction, so the
caller's ``@db_api.reader`` / ``@db_api.writer`` decides the transaction.
"""

import functools

from oslo_db import exception as db_exc
import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects import sqlite
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


def insert_unless_present(session, table, values, unique):
    """INSERT ``values`` into ``table`` unless a row with the same
    ``unique`` columns (a unique constraint) is there already: one
    statement where a look and an insert took two, and no duplicate-key
    error from a concurrent writer of the same row."""
    session.execute(_insert_unless_present(
        session.get_bind().dialect.name, table, tuple(sorted(values)),
        tuple(unique)), values)


@functools.cache
def _insert_unless_present(dialect, table, columns, unique):
    # Built once per shape: building it cost more than running it.
    values = {column: sa.bindparam(column) for column in columns}
    if dialect == 'mysql':
        # MySQL has no DO NOTHING: a no-op update of the key it met.
        statement = mysql.insert(table).values(values)
        return statement.on_duplicate_key_update(
            {unique[0]: statement.inserted[unique[0]]})
    insert = (postgresql if dialect == 'postgresql' else sqlite).insert
    return insert(table).values(values).on_conflict_do_nothing(
        index_elements=list(unique))


def _columns(model):
    """[(attribute name, Column)] of ``model``'s mapped columns."""
    return [(attr.key, attr.columns[0])
            for attr in sa.inspect(model).column_attrs]


def with_defaults(model, values):
    """A full row of ``model`` by attribute name: ``values`` with every
    other column's Python-side default (as a flush applies it) or None."""
    row = {}
    for key, column in _columns(model):
        if key in values:
            row[key] = values[key]
        elif column.default is not None and column.default.is_scalar:
            row[key] = column.default.arg
        elif column.default is not None and column.default.is_callable:
            row[key] = column.default.arg(None)
        elif not column.primary_key:
            row[key] = None
    return row


def insert_rows(session, model, rows, returning=None):
    """INSERT ``rows`` (dicts by attribute name, all with the same keys)
    of ``model`` with Core in one statement (the drivers batch an
    executemany of an INSERT); with ``returning`` (column attribute
    names) return those columns of the new rows, in no promised order.

    Core skips the ORM's unit of work, which cost several times the
    statement itself on the boot's hot path."""
    if not rows:
        return []
    columns = dict(_columns(model))
    params = [{columns[key].key: value for key, value in row.items()}
              for row in rows]
    statement = _insert_statement(model, tuple(returning or ()))
    if not returning:
        session.execute(statement, params)
        return []
    if session.get_bind().dialect.insert_executemany_returning:
        return session.execute(statement, params).all()
    return [session.execute(statement, one).one() for one in params]


@functools.cache
def _insert_statement(model, returning):
    # Built once: the boot's inserts run it with fresh parameters.
    statement = sa.insert(model.__table__)
    if not returning:
        return statement
    columns = dict(_columns(model))
    return statement.returning(
        *[columns[key].label(key) for key in returning])


@functools.cache
def _column_keys(model):
    return {key: column.key for key, column in _columns(model)}


def by_column(model, values):
    """``values`` (by attribute name) by ``model``'s column names, for a
    Core statement on ``model.__table__``.

    Core (the table, its ``.c`` columns) rather than the ORM entity: an
    ORM-enabled UPDATE cost about twice the statement's Core cost on the
    boot's hot path, and these need nothing of the ORM."""
    keys = _column_keys(model)
    return {keys[key]: value for key, value in values.items()}


def update_and_reload(session, model, row_id, values):
    """UPDATE the row with primary key ``row_id``; return it re-read."""
    session.execute(sa.update(model).where(model.id == row_id)
                    .values(**values))
    return session.get(model, row_id, populate_existing=True)


def describe(filters):
    """'key=value, ...' for a not-found message."""
    return ', '.join('%s=%s' % item for item in sorted(filters.items()))


def newest_first_after(query, model, after):
    """``query`` ordered newest first (created_at, then id), going on
    after the row ``after`` (None: from the newest) - the keyset paging
    of the lists Nova pages by marker."""
    if after is not None:
        query = query.where(sa.or_(
            model.created_at < after.created_at,
            sa.and_(model.created_at == after.created_at,
                    model.id < after.id)))
    return query.order_by(model.created_at.desc(), model.id.desc())
