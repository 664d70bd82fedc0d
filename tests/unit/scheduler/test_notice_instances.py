"""Change notices that carry instances' new states: applied to the host
states in memory (their I/O ops, the instances filters see), without a
re-read."""

import pytest

from nova_lite.scheduler import host_manager
from nova_lite.scheduler import host_state

from . import fakes

U = ['00000000-0000-0000-0000-0000000000%02d' % i for i in range(1, 3)]
I1 = '10000000-0000-0000-0000-000000000001'
I2 = '10000000-0000-0000-0000-000000000002'


def _instance(uuid, vm_state='active', task_state=None):
    return host_state.HostInstance(uuid, 'project', vm_state, task_state,
                                   None, {}, frozenset())


@pytest.fixture
def loader():
    nodes = [fakes.compute_node(U[0], 'h1'), fakes.compute_node(U[1], 'h2')]
    return fakes.FakeLoader(
        nodes, [fakes.service('h1'), fakes.service('h2')],
        {U[0]: fakes.summary(U[0], generation=1),
         U[1]: fakes.summary(U[1], generation=1)},
        instances={U[0]: [_instance(I2, task_state='resize_prep')]})


@pytest.fixture
def manager(loader):
    manager = host_manager.HostManager(loader=loader)
    manager.load_all(None)
    # This scheduler's claim of a build on U[0]: at generation 2, the
    # build counted as an I/O op.
    _state(manager, U[0]).consume({'VCPU': 1}, 2,
                                  instance=_instance(I1, 'building'))
    manager.mark_dirty([U[0]], {U[0]: 2})
    manager.get_host_states(None)
    loader.calls.clear()
    return manager


def _state(manager, uuid):
    return {s.uuid: s for s in manager.get_host_states(None)}[uuid]


def _io_ops(manager, uuid):
    return _state(manager, uuid).num_io_ops


def test_a_build_gone_active_is_no_io_op_without_a_reread(manager, loader):
    assert _io_ops(manager, U[0]) == 2
    manager.note_instance_states({U[0]: {I1: ('active', None, 10.0)}})
    assert _io_ops(manager, U[0]) == 1
    assert loader.calls == []
    state = _state(manager, U[0])
    assert (state.instances[I1].vm_state,
            state.instances[I1].task_state) == ('active', None)
    assert state.num_instances == 2
    # The population's columns (what the weighers read) follow.
    population = manager.population
    population.sync()
    assert population.column('num_io_ops')[population.row_of(state)] == 1


def test_a_task_state_moves_the_io_ops_both_ways(manager):
    manager.note_instance_states({U[0]: {I2: ('active', None, 10.0)}})
    assert _io_ops(manager, U[0]) == 1
    manager.note_instance_states({U[0]: {I2: ('active', 'rebuilding',
                                              11.0)}})
    assert _io_ops(manager, U[0]) == 2


def test_an_older_notice_arriving_later_is_ignored(manager):
    manager.note_instance_states({U[0]: {I1: ('active', None, 10.0)}})
    assert _io_ops(manager, U[0]) == 1
    manager.note_instance_states({U[0]: {I1: ('building', None, 9.0)}})
    assert _io_ops(manager, U[0]) == 1


def test_notices_merge_to_the_latest_before_a_request(manager):
    manager.note_instance_states({U[0]: {I1: ('active', None, 10.0)}})
    manager.note_instance_states({U[0]: {I1: ('building', None, 9.0)}})
    assert _io_ops(manager, U[0]) == 1


def test_an_instance_or_node_not_known_changes_nothing(manager, loader):
    manager.note_instance_states({
        U[1]: {I1: ('active', None, 10.0)},
        'not-a-node': {I1: ('active', None, 10.0)}})
    assert _io_ops(manager, U[0]) == 2
    assert _io_ops(manager, U[1]) == 0
    assert loader.calls == []


def test_a_node_reread_meanwhile_keeps_what_it_read(manager, loader):
    """The re-read is newer than the notice: it is not applied over it."""
    loader.instances_[U[0]] = [_instance(I1, 'active'),
                               _instance(I2, 'active')]
    manager.note_instance_states({U[0]: {I2: ('active', 'rebuilding',
                                              10.0)}})
    manager.mark_dirty([U[0]])
    assert _io_ops(manager, U[0]) == 0


def test_a_failed_reread_keeps_the_instance_notes(manager, loader):
    manager.note_instance_states({U[0]: {I1: ('active', None, 10.0)}})
    manager.mark_dirty([U[1]])
    summaries = loader.summaries

    def broken(ctxt, uuids=None):
        raise RuntimeError('db down')

    loader.summaries = broken
    with pytest.raises(RuntimeError):
        manager.get_host_states(None)
    loader.summaries = summaries
    assert _io_ops(manager, U[0]) == 1


def test_without_the_instance_list_the_counts_move_by_the_change():
    """A state counting from the compute's stats (io_workload) moves its
    I/O ops by the changes of the instances it holds."""
    state = host_state.HostState('h1', 'n1', U[0])
    state.num_io_ops = 3
    state.add_instance(_instance(I1, 'building'))
    assert state.num_io_ops == 4
    assert state.apply_instance_states({I1: ('active', None)})
    assert state.num_io_ops == 3
    assert not state.apply_instance_states({I1: ('active', None)})
    assert not state.apply_instance_states({I2: ('error', None)})
    assert state.num_io_ops == 3


@pytest.mark.parametrize('read', ['refresh', 'load_all'])
def test_notes_pending_before_a_read_are_not_applied_over_it(manager,
                                                             loader, read):
    """A re-read of a node (a lost claim's, the catch-up's) or a full load
    reads its instances after the notes pending then arrived."""
    loader.instances_[U[0]] = [_instance(I1, 'active'),
                               _instance(I2, 'active')]
    manager.note_instance_states({U[0]: {I2: ('active', 'rebuilding',
                                              10.0)}})
    if read == 'refresh':
        manager.refresh(None, [U[0]])
    else:
        manager.load_all(None)
    assert _io_ops(manager, U[0]) == 0
