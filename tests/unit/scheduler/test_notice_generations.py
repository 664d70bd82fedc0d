"""Change notices that carry a provider generation: a host whose state is
already at it (this scheduler's own claim) is not re-read; any other
notice is."""

import pytest

from nova_lite.scheduler import host_manager

from . import fakes

U = ['00000000-0000-0000-0000-0000000000%02d' % i for i in range(1, 4)]


@pytest.fixture
def loader():
    nodes = [fakes.compute_node(U[0], 'h1'), fakes.compute_node(U[1], 'h2')]
    return fakes.FakeLoader(
        nodes, [fakes.service('h1'), fakes.service('h2')],
        {U[0]: fakes.summary(U[0], generation=1),
         U[1]: fakes.summary(U[1], generation=1)})


@pytest.fixture
def manager(loader):
    manager = host_manager.HostManager(loader=loader)
    manager.load_all(None)
    # This scheduler's claim on U[0]: its state is at generation 2.
    _state(manager, U[0]).consume({'VCPU': 1}, 2)
    loader.calls.clear()
    return manager


def _state(manager, uuid):
    return {s.uuid: s for s in manager.get_host_states(None)}[uuid]


def _reread(manager, loader):
    """The uuids the next request re-reads."""
    loader.calls.clear()
    manager.get_host_states(None)
    return {uuid for name, uuids in loader.calls if name == 'compute_nodes'
            for uuid in uuids or ()}


def test_the_notice_of_its_own_claim_is_not_reread(manager, loader):
    manager.mark_dirty([U[0]], {U[0]: 2})
    assert _reread(manager, loader) == set()
    assert loader.calls == []
    assert _state(manager, U[0]).generation == 2


def test_an_older_generation_is_not_reread(manager, loader):
    manager.mark_dirty([U[0]], {U[0]: 1})
    assert _reread(manager, loader) == set()


def test_a_notice_without_a_generation_is_reread(manager, loader):
    manager.mark_dirty([U[0]])
    assert _reread(manager, loader) == {U[0]}


def test_a_newer_generation_from_another_writer_is_reread(manager, loader):
    loader.summaries_[U[0]] = fakes.summary(U[0], generation=3)
    manager.mark_dirty([U[0]], {U[0]: 3})
    assert _reread(manager, loader) == {U[0]}
    assert _state(manager, U[0]).generation == 3


@pytest.mark.parametrize('first, second', [
    ({U[0]: 2}, None), (None, {U[0]: 2})])
def test_known_and_unknown_notices_merge_to_a_reread(manager, loader,
                                                     first, second):
    manager.mark_dirty([U[0]], first)
    manager.mark_dirty([U[0]], second)
    assert _reread(manager, loader) == {U[0]}


def test_known_notices_merge_to_the_newest(manager, loader):
    manager.mark_dirty([U[0]], {U[0]: 3})
    manager.mark_dirty([U[0]], {U[0]: 2})
    assert _reread(manager, loader) == {U[0]}


def test_only_the_hosts_not_current_are_reread(manager, loader):
    manager.mark_dirty([U[0], U[1], U[2]], {U[0]: 2, U[1]: 2, U[2]: 1})
    # U[1] is at 1 here; U[2] is not known at all.
    assert _reread(manager, loader) == {U[1], U[2]}


def test_a_failed_reread_keeps_the_generations(manager, loader):
    manager.mark_dirty([U[0], U[1]], {U[0]: 2, U[1]: 2})
    summaries = loader.summaries

    def broken(ctxt, uuids=None):
        raise RuntimeError('db down')

    loader.summaries = broken
    with pytest.raises(RuntimeError):
        manager.get_host_states(None)
    loader.summaries = summaries
    assert _reread(manager, loader) == {U[1]}


def test_a_reread_reads_the_providers_before_their_instances(manager,
                                                             loader):
    """A state's generation then covers its instances too."""
    manager.mark_dirty([U[1]])
    loader.calls.clear()
    manager.get_host_states(None)
    names = [name for name, _ in loader.calls]
    assert names.index('summaries') < names.index('instances')
