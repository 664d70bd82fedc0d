"""A conductor task whose step fails in a database blip still ends where
it started: its undos and its failure records are retried across the
blip, not dropped (the fault suite's resize left in resize_prep)."""

from unittest import mock

from oslo_db import exception as db_exc
import pytest

from nova_lite.conductor.tasks import base


@pytest.fixture(autouse=True)
def no_sleep():
    with mock.patch('time.sleep'):
        yield


def _flaky(failures, log, name):
    """A callable that raises DBConnectionError ``failures`` times."""
    calls = []

    def call(*args, **kwargs):
        calls.append(1)
        if len(calls) <= failures:
            raise db_exc.DBConnectionError('connection refused')
        log.append(name)
    return call


class _Task(base.TaskBase):
    def __init__(self, log, undo_failures, error):
        super().__init__(mock.sentinel.context,
                         mock.Mock(uuid='fake-uuid'))
        self.log = log
        self.undo_failures = undo_failures
        self.error = error

    def _execute(self):
        self.on_failure(_flaky(0, self.log, 'undo first step'))
        self.on_failure(_flaky(self.undo_failures, self.log,
                               'undo second step'))
        raise self.error


@mock.patch('nova_lite.objects.instance_action.InstanceActionEvent')
@mock.patch('nova_lite.objects.InstanceFault')
def test_undos_and_records_outlast_a_blip(fault, events):
    log = []
    fault.from_exception.return_value.create.side_effect = _flaky(
        2, log, 'fault')
    events.event_finish.side_effect = _flaky(2, log, 'event')

    class Task(_Task):
        def rollback(self, error):
            self.record_fault(error)
            self.event_finish('conductor_migrate_server', error)

    error = db_exc.DBConnectionError('server closed the connection')
    Task(log, undo_failures=3, error=error).execute()
    assert log == ['undo second step', 'undo first step', 'fault', 'event']


def test_a_database_that_stays_away_ends_the_undo_not_the_others():
    log = []
    task = _Task(log, undo_failures=100, error=ValueError('step failed'))
    assert task.execute() is None
    # The stubborn undo is given up after its retries; the next one
    # still runs.
    assert log == ['undo first step']
