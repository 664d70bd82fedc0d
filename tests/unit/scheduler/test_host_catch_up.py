"""HostManager catching up with changes no notice told of, and notices
re-reading their hosts' services: a fake loader, no database."""

import datetime

from nova_lite import objects
from nova_lite.scheduler import host_manager

from . import fakes

U = ['00000000-0000-0000-0000-0000000000%02d' % i for i in range(1, 10)]
AGG = 'aaaaaaaa-0000-4000-8000-000000000001'


class DigestLoader(fakes.FakeLoader):
    """A FakeLoader with the two optional reads of DatabaseLoader."""

    def digest(self, ctxt):
        self.calls.append(('digest', None))
        return {node.uuid: (node.updated_at if node.obj_attr_is_set(
                    'updated_at') else None,
                    self.summaries_[node.uuid].generation)
                for node in self.nodes if node.uuid in self.summaries_}

    def services_of_hosts(self, ctxt, hosts):
        self.calls.append(('services_of_hosts', sorted(hosts)))
        return [s for s in self.services_ if s.host in hosts]


def _loaded():
    nodes = [fakes.compute_node(U[0], 'h1'), fakes.compute_node(U[1], 'h2')]
    summaries = {U[0]: fakes.summary(U[0], memory_mb=1024),
                 U[1]: fakes.summary(U[1], memory_mb=2048)}
    aggregates = [objects.Aggregate(uuid=AGG, name='a', hosts=['h1'],
                                    metadata={})]
    loader = DigestLoader(nodes, [fakes.service('h1'), fakes.service('h2')],
                          summaries, aggregates)
    manager = host_manager.HostManager(loader=loader)
    manager.load_all(None)
    loader.calls.clear()
    return manager, loader


def _states(manager):
    return {s.uuid: s for s in manager.population}


def test_catch_up_with_nothing_missed_reads_no_host():
    manager, loader = _loaded()
    assert manager.catch_up(None) == set()
    assert loader.calls == [('digest', None), ('aggregates', None)]


def test_a_missed_provider_change_is_caught_up_alone():
    manager, loader = _loaded()
    loader.summaries_[U[1]] = fakes.summary(U[1], generation=7,
                                            memory_mb=2048,
                                            traits={'CUSTOM_NEW'})
    assert manager.catch_up(None) == {U[1]}
    # Only that host is re-read, and at once, without a request.
    assert ('summaries', [U[1]]) in loader.calls
    assert ('compute_nodes', None) not in loader.calls
    assert 'CUSTOM_NEW' in _states(manager)[U[1]].traits
    assert manager.catch_up(None) == set()


def test_a_missed_compute_node_write_is_caught_up():
    manager, loader = _loaded()
    loader.nodes[0] = fakes.compute_node(
        U[0], 'h1', stats={'failed_builds': '3'},
        updated_at=datetime.datetime(2026, 1, 1, 12, 0))
    assert manager.catch_up(None) == {U[0]}
    assert _states(manager)[U[0]].failed_builds == 3


def test_missed_new_and_gone_nodes_are_caught_up():
    manager, loader = _loaded()
    loader.nodes = [loader.nodes[0], fakes.compute_node(U[2], 'h3')]
    loader.summaries_[U[2]] = fakes.summary(U[2])
    loader.services_.append(fakes.service('h3'))
    del loader.summaries_[U[1]]
    assert manager.catch_up(None) == {U[1], U[2]}
    assert set(_states(manager)) == {U[0], U[2]}


def test_a_missed_aggregate_change_is_caught_up():
    manager, loader = _loaded()
    loader.aggregates_ = [objects.Aggregate(
        uuid=AGG, name='a', hosts=['h1', 'h2'],
        metadata={'availability_zone': 'az9'})]
    assert manager.catch_up(None) == {AGG}
    assert [a.availability_zone for a in _states(manager)[U[1]].aggregates
            ] == ['az9']


def test_a_notice_re_reads_the_service_of_its_host():
    manager, loader = _loaded()
    loader.services_ = [fakes.service('h1'),
                        fakes.service('h2', disabled=True,
                                      disabled_reason='maint')]
    manager.mark_dirty([U[1]])
    manager.get_population(None)
    assert ('services_of_hosts', ['h2']) in loader.calls
    assert ('services', None) not in loader.calls
    assert _states(manager)[U[1]].service['disabled']
    assert not _states(manager)[U[0]].service['disabled']


def test_catch_up_before_the_first_load_does_nothing():
    loader = DigestLoader([], [], {})
    manager = host_manager.HostManager(loader=loader)
    assert manager.catch_up(None) == set()
    assert loader.calls == []
