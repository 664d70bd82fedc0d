"""A PostgreSQL server that cannot be reached is a DBConnectionError.

No server is needed: a port nobody listens on gives libpq's own
"connection to server at ... failed: Connection refused".
"""

import pytest
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import exc_filters
import sqlalchemy as sa

from nova_lite.db import api as db_api
from tests.functional import deployment

pytest.importorskip('psycopg2')


def _engine(hooked):
    engine = sa.create_engine(
        'postgresql+psycopg2://nobody@127.0.0.1:%d/none' %
        deployment.free_port())
    exc_filters.register_engine(engine)
    if hooked:
        db_api.recognise_pg_disconnects(engine)
    return engine


def test_an_unreachable_server_is_a_connection_error():
    engine = _engine(hooked=True)
    with pytest.raises(db_exc.DBConnectionError):
        engine.connect()


def test_without_the_hook_oslo_db_misses_it():
    # Guards the hook's reason: when oslo.db learns libpq's wording this
    # fails, and the hook can go.
    engine = _engine(hooked=False)
    with pytest.raises(sa.exc.OperationalError) as err:
        engine.connect()
    assert not isinstance(err.value, db_exc.DBConnectionError)
