"""HostManager over a fake loader: loading, change notices, services."""

import gc
import threading

import pytest

from nova_lite.scheduler import host_manager
from nova_lite.scheduler import host_services

from . import fakes

U = ['00000000-0000-0000-0000-0000000000%02d' % i for i in range(1, 10)]


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock():
    return Clock()


def _loader():
    nodes = [fakes.compute_node(U[0], 'h1'), fakes.compute_node(U[1], 'h2'),
             fakes.compute_node(U[2], 'h2', nodename='h2-b')]
    services = [fakes.service('h1'), fakes.service('h2')]
    summaries = {U[0]: fakes.summary(U[0], memory_mb=1024),
                 U[1]: fakes.summary(U[1], memory_mb=2048)}
    # U[2] has no resource provider yet.
    return fakes.FakeLoader(nodes, services, summaries)


def _manager(loader, clock):
    return host_manager.HostManager(loader=loader, clock=clock)


def _by_uuid(states):
    return {s.uuid: s for s in states}


def test_load_all_skips_nodes_without_provider(clock):
    manager = _manager(_loader(), clock)
    manager.load_all(None)
    states = _by_uuid(manager.get_host_states(None))
    assert set(states) == {U[0], U[1]}
    assert states[U[0]].host == 'h1'
    assert states[U[1]].total_usable_ram_mb == 2048
    assert all(s.service_up for s in states.values())


def test_first_request_loads_lazily(clock):
    loader = _loader()
    manager = _manager(loader, clock)
    assert not manager.loaded
    assert len(manager.get_host_states(None)) == 2
    assert manager.loaded
    assert ('compute_nodes', None) in loader.calls


def test_node_without_service_is_down(clock):
    loader = _loader()
    loader.services_ = [fakes.service('h1')]
    states = _by_uuid(_manager(loader, clock).get_host_states(None))
    assert states[U[0]].service_up
    assert not states[U[1]].service_up
    assert states[U[1]].service is None


def test_dirty_providers_are_refreshed_in_place(clock):
    loader = _loader()
    manager = _manager(loader, clock)
    before = _by_uuid(manager.get_host_states(None))
    loader.summaries_[U[0]] = fakes.summary(U[0], generation=5,
                                            memory_mb=1024,
                                            used={'MEMORY_MB': 1000})
    loader.calls.clear()
    manager.mark_dirty([U[0]])
    after = _by_uuid(manager.get_host_states(None))
    assert after[U[0]] is before[U[0]]
    assert after[U[0]].generation == 5
    assert after[U[0]].free_ram_mb == 24
    assert ('compute_nodes', [U[0]]) in loader.calls
    assert ('summaries', [U[0]]) in loader.calls
    assert ('compute_nodes', None) not in loader.calls
    # Handled: the next request reads nothing.
    loader.calls.clear()
    manager.get_host_states(None)
    assert loader.calls == []


def test_refresh_drops_gone_nodes_and_adds_new_ones(clock):
    loader = _loader()
    manager = _manager(loader, clock)
    manager.get_host_states(None)
    loader.nodes = [n for n in loader.nodes if n.uuid != U[1]]
    loader.nodes.append(fakes.compute_node(U[3], 'h3'))
    loader.summaries_[U[3]] = fakes.summary(U[3])
    loader.services_.append(fakes.service('h3'))
    loader.calls.clear()
    manager.refresh(None, [U[1], U[3]])
    states = _by_uuid(manager.get_host_states(None))
    assert set(states) == {U[0], U[3]}
    # h3 was unknown: its service was read along with it.
    assert states[U[3]].service_up
    assert ('services', None) in loader.calls


def test_provider_appearing_makes_a_node_schedulable(clock):
    loader = _loader()
    manager = _manager(loader, clock)
    manager.get_host_states(None)
    loader.summaries_[U[2]] = fakes.summary(U[2])
    manager.mark_dirty([U[2]])
    states = _by_uuid(manager.get_host_states(None))
    assert states[U[2]].nodename == 'h2-b'


def test_failed_refresh_keeps_the_notice(clock):
    loader = _loader()
    manager = _manager(loader, clock)
    manager.get_host_states(None)
    manager.mark_dirty([U[0]])

    def broken(ctxt, uuids=None):
        raise RuntimeError('db down')

    loader.summaries = broken
    with pytest.raises(RuntimeError):
        manager.get_host_states(None)
    del loader.summaries
    loader.calls.clear()
    manager.get_host_states(None)
    assert ('summaries', [U[0]]) in loader.calls


def test_services_are_not_read_on_the_decision_path(clock, conf):
    conf.config(report_interval=10)
    loader = _loader()
    manager = _manager(loader, clock)
    manager.get_host_states(None)
    loader.services_ = [fakes.service('h1', up=False),
                        fakes.service('h2', disabled=True)]
    loader.calls.clear()
    clock.now += 15
    states = _by_uuid(manager.get_host_states(None))
    assert loader.calls == []
    assert states[U[0]].service_up

    # The periodic task applies the changes.
    manager.sync_services(None)
    assert loader.calls == [('services', None)]
    assert not states[U[0]].service_up
    assert states[U[1]].service['disabled']


def test_sync_updates_only_the_hosts_whose_service_changed(clock):
    loader = _loader()
    manager = _manager(loader, clock)
    states = _by_uuid(manager.get_host_states(None))
    unchanged = states[U[1]].service
    loader.services_ = [fakes.service('h1', up=False)] + [
        svc for svc in loader.services_ if svc.host != 'h1']
    manager.sync_services(None)
    assert not states[U[0]].service_up
    # Only a new heartbeat there: the host's state was left alone.
    assert states[U[1]].service is unchanged


def test_overdue_services_are_read_on_the_decision_path(clock, conf):
    # A periodic sync that does not run (stuck, or absent) must not leave
    # the view's heartbeats old for long: after four periods a request
    # reads them.
    conf.config(report_interval=2)
    loader = _loader()
    manager = _manager(loader, clock)
    manager.get_host_states(None)
    loader.calls.clear()
    clock.now += 7
    manager.get_host_states(None)
    assert loader.calls == []
    clock.now += 1
    manager.get_host_states(None)
    assert loader.calls == [('services', None)]


def test_sync_before_the_first_load_reads_nothing(clock):
    loader = _loader()
    manager = _manager(loader, clock)
    manager.sync_services(None)
    assert loader.calls == []


def test_full_resync_updates_in_place_and_consumes_notices(clock):
    loader = _loader()
    manager = _manager(loader, clock)
    first = _by_uuid(manager.get_host_states(None))
    first[U[0]].consume({'MEMORY_MB': 512}, 2)
    manager.mark_dirty([U[0]])
    manager.load_all(None)
    loader.calls.clear()
    states = _by_uuid(manager.get_host_states(None))
    assert states[U[0]] is first[U[0]]
    assert states[U[0]].free_ram_mb == 1024  # the database's view again
    assert states[U[0]].generation == 1
    assert loader.calls == []


def test_failed_resync_keeps_pending_notices(clock):
    loader = _loader()
    manager = _manager(loader, clock)
    manager.get_host_states(None)
    manager.mark_dirty([U[1]])
    nodes = loader.compute_nodes

    def broken(ctxt, uuids=None):
        raise RuntimeError('db down')

    loader.compute_nodes = broken
    with pytest.raises(RuntimeError):
        manager.load_all(None)
    loader.compute_nodes = nodes
    loader.calls.clear()
    manager.get_host_states(None)
    assert ('summaries', [U[1]]) in loader.calls


class RecheckLoader(fakes.FakeLoader):
    """A loader that reads only the services to recheck, as the database
    loader does: those not plainly up and enabled, and those asked for."""

    def services_to_recheck(self, ctxt, now, down_time, hosts):
        self.calls.append(('recheck', sorted(hosts)))
        return [svc for svc in self.services_
                if svc.host in hosts or svc.disabled or svc.forced_down
                or not svc.up_at(now, down_time)]


def test_sync_reads_only_the_services_to_recheck(clock):
    base = _loader()
    loader = RecheckLoader(base.nodes, base.services_, base.summaries_)
    manager = _manager(loader, clock)
    states = _by_uuid(manager.get_host_states(None))
    loader.calls.clear()
    manager.sync_services(None)
    # Everything up and enabled: nothing to recheck, nothing read.
    assert loader.calls == [('recheck', [])]
    loader.services_ = [fakes.service('h1', up=False), fakes.service('h2')]
    manager.sync_services(None)
    assert not states[U[0]].service_up and states[U[1]].service_up
    # h1 is rechecked until it is back.
    loader.calls.clear()
    loader.services_ = [fakes.service('h1'), fakes.service('h2')]
    manager.sync_services(None)
    assert loader.calls == [('recheck', ['h1'])]
    assert states[U[0]].service_up
    loader.calls.clear()
    manager.sync_services(None)
    assert loader.calls == [('recheck', [])]


def test_a_request_waits_for_the_notices_another_is_applying(clock):
    """Regression: with the computes registered after the scheduler
    started, two requests arrived together; the first took the dirty
    notices and read the new nodes, the second found no notices left and
    decided on the empty view: NoValidHost, "No compute nodes are known".
    """
    loader = _loader()
    nodes = loader.nodes
    loader.nodes = []
    manager = _manager(loader, clock)
    assert manager.get_host_states(None) == []
    loader.nodes = nodes
    reading, release = threading.Event(), threading.Event()
    original = loader.compute_nodes

    def slow_compute_nodes(ctxt, uuids=None):
        reading.set()
        release.wait(5)
        return original(ctxt, uuids)

    loader.compute_nodes = slow_compute_nodes
    manager.mark_dirty([U[0], U[1]])
    first = threading.Thread(target=manager.get_host_states, args=(None,))
    first.start()
    assert reading.wait(5)
    seen = []
    second = threading.Thread(
        target=lambda: seen.append(manager.get_host_states(None)))
    second.start()
    second.join(0.2)
    release.set()
    first.join(5)
    second.join(5)
    assert len(seen[0]) == 2


class _ListingLoader(fakes.FakeLoader):
    """A loader that can list the nodes first (a digest), so the load
    reads them in batches."""

    def digest(self, ctxt):
        return {node.uuid: (None, 1) for node in self.nodes}


def _fleet_loader(count):
    nodes = [fakes.compute_node(U[i], 'h%d' % i) for i in range(count)]
    return _ListingLoader(
        nodes, [fakes.service('h%d' % i) for i in range(count)],
        {U[i]: fakes.summary(U[i], memory_mb=1024 * (i + 1))
         for i in range(count)})


def test_load_all_reads_nodes_in_batches(clock, conf):
    # The records of a batch are dropped before the next is read: the
    # load never holds the whole fleet's records.
    conf.config(group='scheduler', host_state_load_batch=2)
    loader = _fleet_loader(5)
    manager = _manager(loader, clock)
    manager.load_all(None)
    assert [uuids for call, uuids in loader.calls
            if call == 'compute_nodes'] == [U[0:2], U[2:4], U[4:5]]
    states = _by_uuid(manager.get_host_states(None))
    assert set(states) == set(U[:5])
    assert states[U[4]].total_usable_ram_mb == 5 * 1024
    assert [state.uuid for state in manager.population] == U[:5]


def test_load_all_at_once_without_batches(clock, conf):
    conf.config(group='scheduler', host_state_load_batch=0)
    loader = _fleet_loader(3)
    manager = _manager(loader, clock)
    manager.load_all(None)
    assert [uuids for call, uuids in loader.calls
            if call == 'compute_nodes'] == [None]
    assert len(manager.population) == 3


class _CollectorWatchingLoader(_ListingLoader):
    """Notes whether the automatic collector runs at each read."""

    def __init__(self, *args):
        super().__init__(*args)
        self.collector = []

    def compute_nodes(self, ctxt, uuids=None):
        self.collector.append(gc.isenabled())
        return super().compute_nodes(ctxt, uuids)


def test_load_all_collects_young_objects_per_batch(clock, conf,
                                                   monkeypatch):
    conf.config(group='scheduler', host_state_load_batch=2)
    base = _fleet_loader(5)
    loader = _CollectorWatchingLoader(base.nodes, base.services_,
                                      base.summaries_)
    collected = []
    monkeypatch.setattr(gc, 'collect',
                        lambda generation=2: collected.append(generation))
    assert gc.isenabled()
    _manager(loader, clock).load_all(None)
    # Paused during the load (no full collections), young objects
    # collected after each batch, and automatic again after it.
    assert loader.collector == [False, False, False]
    assert collected == [1, 1, 1]
    assert gc.isenabled()


def test_up_services_are_kept_without_a_pair(clock):
    loader = _loader()
    loader.services_ = [fakes.service('h1'),
                        fakes.service('h2', up=False)]
    manager = _manager(loader, clock)
    manager.load_all(None)
    up, down = manager._services['h1'], manager._services['h2']
    assert type(up) is host_manager.host_state_mod.ServiceRecord
    assert down == (host_services.split(down)[0], False)
    assert host_services.split(up) == (up, True)
    assert host_services.split(None) == (None, False)
