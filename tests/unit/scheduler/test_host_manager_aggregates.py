"""HostManager: host aggregates, zones and instances kept current from
change notices (an aggregate's uuid in a notice re-reads it)."""

from nova_lite import objects
from nova_lite.scheduler import host_manager
from nova_lite.scheduler import host_state

from . import fakes

U = ['00000000-0000-0000-0000-0000000000%02d' % i for i in range(1, 10)]
AGG = 'aaaaaaaa-0000-4000-8000-000000000001'
AGG2 = 'aaaaaaaa-0000-4000-8000-000000000002'


def _aggregate(uuid, name, hosts, **metadata):
    return objects.Aggregate(uuid=uuid, name=name, hosts=list(hosts),
                             metadata=metadata)


def _instance(uuid, **kwargs):
    values = dict(project_id='p', vm_state='active', task_state=None,
                  flavor=None, image_properties={}, group_uuids=frozenset())
    values.update(kwargs)
    return host_state.HostInstance(uuid=uuid, **values)


def _loader():
    nodes = [fakes.compute_node(U[0], 'h1'), fakes.compute_node(U[1], 'h2'),
             fakes.compute_node(U[2], 'h2', nodename='h2-b')]
    services = [fakes.service('h1'), fakes.service('h2')]
    summaries = {u: fakes.summary(u) for u in U[:3]}
    aggregates = [_aggregate(AGG, 'rack1', ['h2'], availability_zone='az1')]
    instances = {U[0]: [_instance('i1', vm_state='building')]}
    return fakes.FakeLoader(nodes, services, summaries, aggregates,
                            instances)


def _states(manager):
    return {s.uuid: s for s in manager.get_host_states(None)}


def test_load_gives_zones_aggregates_and_instances():
    manager = host_manager.HostManager(loader=_loader())
    states = _states(manager)
    assert states[U[0]].availability_zone == 'nova'
    assert states[U[1]].availability_zone == 'az1'
    assert states[U[2]].availability_zone == 'az1'
    # One view shared by the nodes of its hosts.
    assert states[U[1]].aggregates[0] is states[U[2]].aggregates[0]
    assert [a.uuid for a in manager.aggregates()] == [AGG]
    assert list(states[U[0]].instances) == ['i1']
    assert (states[U[0]].num_instances, states[U[0]].num_io_ops) == (1, 1)
    assert states[U[1]].instances == {}


def test_aggregate_notice_moves_hosts_between_zones():
    loader = _loader()
    manager = host_manager.HostManager(loader=loader)
    states = _states(manager)
    loader.aggregates_ = [_aggregate(AGG, 'rack1', ['h1'],
                                     availability_zone='az9')]
    loader.calls.clear()
    manager.mark_dirty([AGG])
    manager.get_host_states(None)
    assert states[U[0]].availability_zone == 'az9'
    assert states[U[1]].availability_zone == 'nova'
    assert states[U[1]].aggregates == []
    assert ('aggregates', [AGG]) in loader.calls
    # Looked up as a node first (it is none), then as an aggregate.
    assert ('compute_nodes', [AGG]) in loader.calls
    assert ('summaries', []) in loader.calls


def test_new_and_deleted_aggregates():
    loader = _loader()
    manager = host_manager.HostManager(loader=loader)
    states = _states(manager)
    loader.aggregates_.append(_aggregate(AGG2, 'tenant', ['h1'],
                                         filter_tenant_id='p'))
    manager.mark_dirty([AGG2])
    manager.get_host_states(None)
    assert [a.name for a in states[U[0]].aggregates] == ['tenant']
    assert {a.uuid for a in manager.aggregates()} == {AGG, AGG2}
    loader.aggregates_ = loader.aggregates_[1:]
    manager.mark_dirty([AGG])
    manager.get_host_states(None)
    assert states[U[1]].aggregates == []
    assert states[U[1]].availability_zone == 'nova'
    assert [a.uuid for a in manager.aggregates()] == [AGG2]


def test_refreshed_node_gets_current_instances():
    loader = _loader()
    manager = host_manager.HostManager(loader=loader)
    states = _states(manager)
    loader.instances_[U[0]] = [_instance('i1'), _instance('i2')]
    loader.calls.clear()
    manager.mark_dirty([U[0]])
    manager.get_host_states(None)
    assert set(states[U[0]].instances) == {'i1', 'i2'}
    assert (states[U[0]].num_instances, states[U[0]].num_io_ops) == (2, 0)
    assert ('instances', [U[0]]) in loader.calls
    # No unknown uuid in the notice: no aggregate read.
    assert not any(call[0] == 'aggregates' for call in loader.calls)


def test_gone_node_is_not_taken_for_an_aggregate():
    loader = _loader()
    manager = host_manager.HostManager(loader=loader)
    _states(manager)
    loader.nodes = loader.nodes[1:]
    loader.calls.clear()
    manager.mark_dirty([U[0]])
    assert U[0] not in _states(manager)
    assert not any(call[0] == 'aggregates' for call in loader.calls)


def test_new_node_of_a_host_in_an_aggregate_gets_its_zone():
    loader = _loader()
    manager = host_manager.HostManager(loader=loader)
    _states(manager)
    loader.nodes.append(fakes.compute_node(U[3], 'h2', nodename='h2-c'))
    loader.summaries_[U[3]] = fakes.summary(U[3])
    manager.mark_dirty([U[3]])
    assert _states(manager)[U[3]].availability_zone == 'az1'


def test_disable_notice_refreshes_the_service_at_once():
    """The API sets COMPUTE_STATUS_DISABLED and notifies: ComputeFilter
    must not wait for the service cache to expire (nor for the re-read
    of an enable)."""
    loader = _loader()
    manager = host_manager.HostManager(loader=loader)
    states = _states(manager)
    for disabled in (True, False, True):
        loader.services_[0] = fakes.service('h1', disabled=disabled)
        traits = loader.summaries_[U[0]].traits
        if disabled:
            traits.add('COMPUTE_STATUS_DISABLED')
        else:
            traits.discard('COMPUTE_STATUS_DISABLED')
        manager.mark_dirty([U[0]])
        manager.get_host_states(None)
        assert states[U[0]].service['disabled'] is disabled


def test_lasting_disagreement_is_not_reread_every_time():
    loader = _loader()
    manager = host_manager.HostManager(loader=loader)
    _states(manager)
    # A trait sync failed: the trait says disabled, the service does not.
    loader.summaries_[U[0]].traits.add('COMPUTE_STATUS_DISABLED')
    loader.calls.clear()
    manager.mark_dirty([U[0]])
    manager.get_host_states(None)
    assert loader.calls.count(('services', None)) == 1
    loader.calls.clear()
    manager.mark_dirty([U[0]])
    manager.get_host_states(None)
    assert ('services', None) not in loader.calls
