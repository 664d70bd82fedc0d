"""Pooled connections are pinged on checkout only after sitting idle."""

import types

import pytest
import sqlalchemy

from nova_lite.db import api as db_api


class FakeDialect:
    def __init__(self, alive=True):
        self.alive = alive
        self.pinged = 0

    def do_ping(self, dbapi_connection):
        self.pinged += 1
        if self.alive is None:
            raise OSError('connection reset')
        return self.alive


@pytest.fixture
def hooks(monkeypatch):
    """The checkin and checkout listeners ping_only_idle installs, over a
    fake engine, and a clock the test moves."""
    listeners = {}
    clock = types.SimpleNamespace(now=100.0)
    monkeypatch.setattr(sqlalchemy.event, 'listens_for',
                        lambda target, name: lambda fn: listeners.setdefault(
                            name, fn))
    monkeypatch.setattr(db_api.time, 'monotonic', lambda: clock.now)
    engine = types.SimpleNamespace(pool=types.SimpleNamespace(_pre_ping=True),
                                   dialect=FakeDialect())
    db_api.ping_only_idle(engine)
    return types.SimpleNamespace(engine=engine, clock=clock,
                                 record=types.SimpleNamespace(info={}),
                                 **listeners)


def test_sqlalchemy_pre_ping_is_off(hooks):
    assert hooks.engine.pool._pre_ping is False


def test_a_new_or_recently_used_connection_is_not_pinged(hooks):
    hooks.checkout(None, hooks.record, None)
    hooks.checkin(None, hooks.record)
    hooks.clock.now += db_api.PING_IDLE_SECONDS / 2
    hooks.checkout(None, hooks.record, None)
    assert hooks.engine.dialect.pinged == 0


def test_an_idle_connection_is_pinged(hooks):
    hooks.checkin(None, hooks.record)
    hooks.clock.now += db_api.PING_IDLE_SECONDS + 1
    hooks.checkout(None, hooks.record, None)
    assert hooks.engine.dialect.pinged == 1


@pytest.mark.parametrize('alive', [False, None])
def test_a_dead_idle_connection_is_replaced(hooks, alive):
    hooks.engine.dialect.alive = alive
    hooks.checkin(None, hooks.record)
    hooks.clock.now += db_api.PING_IDLE_SECONDS + 1
    with pytest.raises(sqlalchemy.exc.DisconnectionError):
        hooks.checkout(None, hooks.record, None)
