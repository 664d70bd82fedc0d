"""Live migration between two computes' real fake drivers, in process:
the protocol's order and migration statuses, each failure rolled back
with the VM still on the source, abort and force_complete of a running
copy, and a failed take-over on the destination.

The computes' RPC to each other is a direct call; the conductor, the
resource trackers and the records' saves are fakes that record.
"""

import threading
import time
import types
from unittest import mock

import pytest

from nova_lite.compute import live_migration
from nova_lite.compute import power
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.virt import fake
from tests.unit.compute import fakes

V = fields.VMState


class ComputeRPC:
    """The compute RPC between the two, as direct calls."""

    def __init__(self, w):
        self.w = w

    def pre_live_migration(self, context, instance, migration,
                           migrate_data):
        self.w.log.append('dst.pre_live_migration')
        return self.w.dst.pre_live_migration(context, instance, migration,
                                             migrate_data)

    def post_live_migration_at_destination(self, context, instance,
                                           migration):
        self.w.log.append('dst.post_live_migration_at_destination')
        return self.w.dst.post_live_migration_at_destination(
            context, instance, migration)

    def rollback_live_migration_at_destination(self, context, instance,
                                               migration):
        self.w.log.append('dst.rollback_live_migration_at_destination')
        return self.w.dst.rollback_live_migration_at_destination(
            context, instance, migration)


def _driver(host):
    driver = fake.FakeDriver()
    driver.init_host(host)
    return driver


@pytest.fixture
def w(conf, monkeypatch):
    w = types.SimpleNamespace(log=[], statuses=[], settled=[], events=[])
    w.conf = conf
    w.src_driver, w.dst_driver = _driver('src'), _driver('dst')
    w.src_rt, w.dst_rt = mock.Mock(), mock.Mock()
    conductor = mock.Mock()
    conductor.live_migrate_instance.side_effect = (
        lambda c, i, migration, failure=None: w.settled.append(failure))
    rpc = ComputeRPC(w)
    w.src = live_migration.LiveMigration('src', w.src_driver, w.src_rt,
                                         lambda: rpc, lambda: conductor)
    w.dst = live_migration.LiveMigration('dst', w.dst_driver, w.dst_rt,
                                         lambda: rpc, lambda: conductor)
    w.instance = fakes.instance(host='src', node='src-n0',
                                vm_state=V.ACTIVE, task_state='migrating')
    w.instance.power_state = fields.PowerState.RUNNING
    w.src_driver.spawn(None, w.instance, None, 'src-n0')
    w.migration = objects.Migration(
        uuid='5b0e3c7a-8f7d-4b0e-9d3f-2a1c6e4b7d90', status='accepted',
        source_compute='src', source_node='src-n0', dest_compute='dst',
        dest_node='dst-n0', instance_uuid=w.instance.uuid)
    monkeypatch.setattr(objects.Migration, 'save',
                        lambda self: w.statuses.append(self.status))
    monkeypatch.setattr(objects.Instance, 'save',
                        lambda self, **kw: w.log.append(
                            'save %s' % self.vm_state))
    monkeypatch.setattr(power, 'event_start', lambda *a: None)
    monkeypatch.setattr(
        power, 'event_finish', lambda c, i, event, error=None:
        w.events.append((event, error and type(error).__name__)))
    monkeypatch.setattr(power, 'record_fault', lambda *a: None)
    return w


def _data(w):
    return w.dst.check_can_live_migrate_destination(
        None, w.instance, w.migration, None)


def _on(driver, instance):
    return instance.uuid in driver.list_instance_uuids()


def test_a_live_migration_in_nova_order(w):
    data = _data(w)
    assert data == {'block_migration': True, 'dest_node': 'dst-n0'}
    assert w.src.live_migration(None, w.instance, w.migration, data)
    assert w.statuses == ['queued', 'preparing', 'running',
                          'post-migrating']
    assert w.log == ['dst.pre_live_migration',
                     'dst.post_live_migration_at_destination']
    assert not _on(w.src_driver, w.instance)
    assert _on(w.dst_driver, w.instance)
    assert w.dst_driver.get_info(w.instance) == fields.PowerState.RUNNING
    assert w.settled == [None]
    w.src_rt.free_instance.assert_called_once_with(w.instance)
    w.dst_rt.track_instance.assert_called_once_with(w.instance)


def test_a_refusing_destination_says_why(w):
    w.conf.config(group='fake_driver',
                  fail_operations=['check_can_live_migrate_destination:*'])
    w.dst_driver = w.dst.driver = _driver('dst')
    with pytest.raises(live_migration.exception.MigrationPreCheckError) as e:
        _data(w)
    assert 'fail_operations' in e.value.format_message()


@pytest.mark.parametrize('operation,statuses', [
    ('pre_live_migration', ['queued', 'preparing']),
    ('live_migration', ['queued', 'preparing', 'running'])])
def test_a_failure_leaves_the_vm_on_the_source(w, operation, statuses):
    w.conf.config(group='fake_driver', fail_operations=[operation + ':*'])
    w.src_driver, w.dst_driver = _driver('src'), _driver('dst')
    w.src_driver.spawn(None, w.instance, None, 'src-n0')
    w.src.driver, w.dst.driver = w.src_driver, w.dst_driver
    assert not w.src.live_migration(None, w.instance, w.migration,
                                    _data(w))
    assert w.statuses == statuses
    assert w.log[-1] == 'dst.rollback_live_migration_at_destination'
    assert _on(w.src_driver, w.instance)
    assert not _on(w.dst_driver, w.instance)
    assert w.dst_driver._live_state()[0] == {}
    [failure] = w.settled
    assert failure['status'] == 'error'
    assert 'fail_operations' in failure['reason']
    [(_name, error)] = [e for e in w.events
                        if e[0] == 'compute_live_migration']
    assert error is not None


def _running(w):
    w.conf.config(group='fake_driver',
                  operation_delays={'live_migration': '30'})
    data = _data(w)
    thread = threading.Thread(target=w.src.live_migration,
                              args=(None, w.instance, w.migration, data))
    thread.start()
    deadline = time.monotonic() + 10
    while w.instance.uuid not in w.src_driver._live_state()[1]:
        assert time.monotonic() < deadline, 'the copy never started'
        time.sleep(0.01)
    return thread


def test_abort_stops_the_copy_and_leaves_the_vm_on_the_source(w):
    thread = _running(w)
    started = time.monotonic()
    w.src.live_migration_abort(None, w.instance, w.migration)
    thread.join(10)
    assert not thread.is_alive() and time.monotonic() - started < 5
    assert w.settled[0]['status'] == 'cancelled'
    assert _on(w.src_driver, w.instance)
    assert not _on(w.dst_driver, w.instance)
    assert ('compute_live_migration_abort', None) in w.events


def test_force_complete_ends_the_copy_now(w):
    thread = _running(w)
    started = time.monotonic()
    w.src.live_migration_force_complete(None, w.instance, w.migration)
    thread.join(10)
    assert not thread.is_alive() and time.monotonic() - started < 5
    assert w.settled == [None]
    assert _on(w.dst_driver, w.instance)


def test_abort_with_nothing_running_is_only_an_error_event(w):
    w.src.live_migration_abort(None, w.instance, w.migration)
    assert w.events == [('compute_live_migration_abort',
                         'NoActiveLiveMigration')]
    assert w.settled == []


def test_a_failed_take_over_puts_the_server_in_error(w):
    w.conf.config(group='fake_driver', fail_operations=[
        'post_live_migration_at_destination:*'])
    w.dst_driver = w.dst.driver = _driver('dst')
    assert w.src.live_migration(None, w.instance, w.migration, _data(w))
    assert w.instance.vm_state == V.ERROR
    assert w.statuses[-1] == 'error'
    assert w.settled == []


class AbortingDestination(ComputeRPC):
    """A destination whose pre_live_migration is interrupted by an abort
    on the source (the migration is ``preparing`` meanwhile)."""

    def pre_live_migration(self, context, instance, migration,
                           migrate_data):
        self.w.status_at_abort = self.w.statuses[-1]
        self.w.src.live_migration_abort(None, instance, migration)
        return super().pre_live_migration(context, instance, migration,
                                          migrate_data)


def test_abort_while_preparing_cancels_before_the_copy(w):
    rpc = AbortingDestination(w)
    w.src._compute_api = lambda: rpc
    data = _data(w)
    assert not w.src.live_migration(None, w.instance, w.migration, data)
    assert w.status_at_abort == 'preparing'
    assert 'running' not in w.statuses
    assert w.settled[0]['status'] == 'cancelled'
    assert w.log[-1] == 'dst.rollback_live_migration_at_destination'
    assert _on(w.src_driver, w.instance)
    assert not _on(w.dst_driver, w.instance)
    assert ('compute_live_migration_abort', None) in w.events
    # Nothing is left behind for the next migration of this server.
    assert w.src._not_started == {}
