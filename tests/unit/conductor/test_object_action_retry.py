"""A save through the conductor survives a database blip."""

from unittest import mock

from oslo_db import exception as db_exc
import pytest

from nova_lite.conductor import manager
from nova_lite.objects import base
from nova_lite.objects import fields


@base.NovaLiteObjectRegistry.register_if(False)
class _Saved(base.NovaLiteObject):
    VERSION = '1.0'
    fields = {'name': fields.StringField()}

    def __init__(self, failures, **kwargs):
        super().__init__(**kwargs)
        self.failures = failures
        self.calls = 0

    def save(self):
        self.calls += 1
        if self.calls <= self.failures:
            raise db_exc.DBConnectionError('connection to server failed')
        self.name = 'saved'
        return 'done'


@pytest.fixture(autouse=True)
def no_sleep():
    with mock.patch('time.sleep'):
        yield


def _action(obj):
    return manager.ConductorManager.object_action(
        mock.sentinel.self, mock.sentinel.context, obj, 'save', (), {})


def test_a_lost_connection_is_retried():
    obj = _Saved(failures=3, name='before')
    updates, result = _action(obj)
    assert result == 'done'
    assert obj.calls == 4
    assert updates['name'] == 'saved'


def test_a_database_that_stays_away_still_fails():
    obj = _Saved(failures=100, name='before')
    with pytest.raises(db_exc.DBConnectionError):
        _action(obj)
    assert obj.calls == 7  # the first try and six retries


@base.NovaLiteObjectRegistry.register_if(False)
class _Read(base.NovaLiteObject):
    VERSION = '1.0'
    fields = {}
    calls = []

    @classmethod
    def get_it(cls, context, failures):
        cls.calls.append(1)
        if len(cls.calls) <= failures:
            raise db_exc.DBConnectionError('connection to server failed')
        return 'read'


def test_a_class_action_is_retried_across_a_blip(monkeypatch):
    """A compute's read through the conductor (a move's migration) must
    not fail its step in a database blip."""
    monkeypatch.setattr(base.NovaLiteObject, 'obj_class_from_name',
                        classmethod(lambda cls, name, version: _Read))
    _Read.calls.clear()
    result = manager.ConductorManager.object_class_action_versions(
        mock.sentinel.self, mock.sentinel.context, '_Read', 'get_it',
        {'_Read': '1.0'}, (3,), {})
    assert result == 'read'
    assert len(_Read.calls) == 4
