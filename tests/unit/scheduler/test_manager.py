"""SchedulerManager: the RPC endpoint over a fake loader and claimer."""

import threading
from unittest import mock

import oslo_messaging as messaging
import pytest

from nova_lite import exception
from nova_lite.scheduler import host_manager
from nova_lite.scheduler import manager
from nova_lite.scheduler import rpcapi

from . import fakes

U = ['00000000-0000-0000-0000-0000000000%02d' % i for i in range(1, 10)]


def _loader():
    nodes = [fakes.compute_node(U[0], 'h1'), fakes.compute_node(U[1], 'h2')]
    summaries = {U[0]: fakes.summary(U[0], memory_mb=4096),
                 U[1]: fakes.summary(U[1], memory_mb=8192)}
    return fakes.FakeLoader(nodes, [fakes.service('h1'),
                                    fakes.service('h2')], summaries)


def _manager(loader=None, claimer=None):
    claimer = claimer or fakes.FakeClaimer()
    return manager.SchedulerManager(
        host='sched1',
        host_manager=host_manager.HostManager(loader=loader or _loader()),
        claimer_factory=lambda context: claimer)


def test_target_version_matches_the_client():
    assert manager.SchedulerManager.target.version == rpcapi.RPC_VERSION


def test_select_destinations_claims_with_alternates():
    claimer = fakes.FakeClaimer()
    mgr = _manager(claimer=claimer)
    result = mgr.select_destinations(None, fakes.spec(memory_mb=1024),
                                     U[5:7])
    # The second instance goes to h1: the first build is an I/O-heavy
    # operation on h2 now, and IoOpsWeigher prefers idle hosts.
    assert [[s.service_host for s in r] for r in result] == [
        ['h2', 'h1'], ['h1', 'h2']]
    assert [c[:2] for c in claimer.claims] == [(U[5], 'h2'), (U[6], 'h1')]


def test_select_destinations_without_alternates():
    result = _manager().select_destinations(
        None, fakes.spec(), [U[5]], return_alternates=False)
    assert [[s.service_host for s in r] for r in result] == [['h2']]


def test_no_valid_host_is_an_expected_exception():
    mgr = _manager()
    with pytest.raises(messaging.ExpectedException) as info:
        mgr.select_destinations(None, fakes.spec(memory_mb=65536), [U[5]])
    assert isinstance(info.value.exc_info[1], exception.NoValidHost)


def test_claim_conflict_refreshes_through_the_host_manager():
    loader = _loader()
    claimer = fakes.FakeClaimer(conflicts={U[1]})
    mgr = _manager(loader, claimer)
    mgr.host_manager.load_all(None)
    loader.calls.clear()
    result = mgr.select_destinations(None, fakes.spec(), [U[5]])
    assert result[0][0].service_host == 'h1'
    assert ('summaries', [U[1]]) in loader.calls


def test_decisions_hold_the_host_manager_lock():
    mgr = _manager()
    seen = []

    def decide(*args, **kwargs):
        def probe():
            got = mgr.host_manager.lock.acquire(blocking=False)
            seen.append(got)
            if got:
                mgr.host_manager.lock.release()
        thread = threading.Thread(target=probe)
        thread.start()
        thread.join()
        return []

    mgr.driver = mock.Mock(select_destinations=decide)
    mgr.select_destinations(None, fakes.spec(), [U[5]])
    assert seen == [False]


def test_update_provider_states_marks_dirty():
    loader = _loader()
    mgr = _manager(loader)
    mgr.host_manager.load_all(None)
    loader.calls.clear()
    mgr.update_provider_states(None, [U[0]])
    assert loader.calls == []  # nothing read until the next request
    mgr.select_destinations(None, fakes.spec(), [U[5]])
    assert ('summaries', [U[0]]) in loader.calls


def test_loads_once_consuming_and_survives_failure():
    mgr = _manager()
    mgr.init_host()
    assert not mgr.host_manager.loaded
    mgr.post_start_hook()
    assert mgr.host_manager.loaded

    broken = _loader()
    broken.compute_nodes = mock.Mock(side_effect=RuntimeError('db down'))
    mgr = _manager(broken)
    mgr.post_start_hook()
    assert not mgr.host_manager.loaded


def test_catch_up_period_comes_from_config(conf):
    conf.config(group='scheduler', host_state_resync_interval=17)
    mgr = _manager()
    assert mgr._periodic_spacing['_catch_up_host_states'] == 17
    # Per instance: the class keeps its own.
    assert manager.SchedulerManager._periodic_spacing[
        '_catch_up_host_states'] == 60


def test_no_periodic_task_reloads_every_host():
    # The tasks a scheduler runs: the catch-up compares a digest, the
    # services task reads the unsettled services; neither reloads.
    assert set(manager.SchedulerManager._periodic_spacing) == {
        '_catch_up_host_states', '_sync_services'}


def test_catch_up_task_asks_the_host_manager():
    mgr = _manager()
    mgr.host_manager = mock.Mock()
    mgr._catch_up_host_states('ctxt')
    mgr.host_manager.catch_up.assert_called_once_with('ctxt')
    mgr.host_manager.load_all.assert_not_called()


def test_bad_filter_config_stops_the_manager(conf):
    conf.config(group='filter_scheduler', enabled_filters=['NoSuchFilter'])
    with pytest.raises(exception.SchedulerHostFilterNotFound):
        _manager()


def test_bad_weigher_config_stops_the_manager(conf):
    conf.config(group='filter_scheduler', weight_classes=['NoSuchWeigher'])
    with pytest.raises(exception.SchedulerWeigherNotFound):
        _manager()


def test_reads_happen_before_the_decision_lock():
    # A notice's refresh reads the database without the lock, so another
    # thread's decision is not held up by it; the lock is taken for the
    # decision only.
    loader = _loader()
    mgr = _manager(loader)
    mgr.host_manager.load_all(None)
    mgr.update_provider_states(None, [U[0]])
    free_during_read = []
    read = loader.summaries

    def probing(ctxt, uuids=None):
        def probe():
            got = mgr.host_manager.lock.acquire(blocking=False)
            free_during_read.append(got)
            if got:
                mgr.host_manager.lock.release()
        thread = threading.Thread(target=probe)
        thread.start()
        thread.join()
        return read(ctxt, uuids)

    loader.summaries = probing
    mgr.select_destinations(None, fakes.spec(), [U[5]])
    assert free_during_read == [True]


def test_services_are_synced_by_a_periodic_task(conf):
    conf.config(report_interval=3)
    loader = _loader()
    mgr = _manager(loader)
    assert mgr._periodic_spacing['_sync_services'] == 3
    mgr.host_manager.load_all(None)
    loader.services_ = [fakes.service('h1', up=False), fakes.service('h2')]
    mgr._sync_services(None)
    states = {s.host: s for s in mgr.host_manager.get_host_states(None)}
    assert not states['h1'].service_up and states['h2'].service_up


def test_update_provider_states_passes_on_the_generations():
    mgr = _manager(_loader())
    mgr.host_manager.mark_dirty = mock.Mock()
    mgr.update_provider_states(None, [U[0]], aggregate_uuids=[U[1]],
                               generations={U[0]: 3})
    mgr.host_manager.mark_dirty.assert_called_once_with(
        [U[0], U[1]], {U[0]: 3})
