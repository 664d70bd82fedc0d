"""The scheduling core with server groups and prefilters: policies hold
across the instances of one request, claims join the host's instances,
prefilters explain themselves in NoValidHost."""

import random

import os_traits
import pytest

from nova_lite import exception
from nova_lite import objects
from nova_lite.scheduler import filter_scheduler
from nova_lite.scheduler.filters import compute_filter
from nova_lite.scheduler.filters import server_group_affinity_filter as aff
from nova_lite.scheduler.filters import server_group_anti_affinity_filter \
    as anti
from nova_lite.scheduler import host_state
from nova_lite.scheduler import request_filter
from nova_lite.scheduler.weighers import ram

from . import fakes

UUIDS = ['00000000-0000-0000-0000-00000000000%d' % i for i in range(1, 10)]
GROUP = '6f0c3c5e-8d0b-4bde-9a51-7d0c2b1f0a11'


def _scheduler():
    return filter_scheduler.FilterScheduler(
        [compute_filter.ComputeFilter(),
         aff.ServerGroupAffinityFilter(),
         anti.ServerGroupAntiAffinityFilter()],
        [ram.RAMWeigher()], rng=random.Random(0))


def _hosts(count=3):
    hosts = [fakes.host('h%d' % i, memory_mb=8192 + i * 1024)
             for i in range(count)]
    for host in hosts:
        host.set_instances([])
    return hosts


def _spec(policy, members=(), hosts=()):
    spec = fakes.spec(num_instances=3)
    spec.instance_group = objects.InstanceGroup(
        uuid=GROUP, name='g', policy=policy, rules={}, project_id='project',
        user_id='user', members=list(members), hosts=list(hosts))
    return spec


def _select(spec, hosts, count, **kwargs):
    return _scheduler().select_destinations(
        spec, hosts, UUIDS[:count], fakes.FakeClaimer(), **kwargs)


def test_anti_affinity_spreads_one_request():
    spec = _spec('anti-affinity', members=UUIDS[:3])
    result = _select(spec, _hosts(), 3)
    chosen = [selections[0].service_host for selections in result]
    assert sorted(chosen) == ['h0', 'h1', 'h2']
    assert spec.instance_group.hosts == chosen
    assert spec.instance_group.members == UUIDS[:3]


def test_anti_affinity_runs_out_of_hosts():
    spec = _spec('anti-affinity', members=UUIDS[:3])
    hosts = _hosts(2)
    with pytest.raises(exception.NoValidHost) as err:
        _select(spec, hosts, 3)
    message = err.value.format_message()
    # The third starts from the one host the second kept.
    assert 'Instance 3 of 3' in message
    assert 'ServerGroupAntiAffinityFilter: 1 -> 0 (1 run 1 of group g)' \
        in message


def test_affinity_keeps_one_request_together():
    spec = _spec('affinity', members=UUIDS[:3])
    result = _select(spec, _hosts(), 3)
    assert {selections[0].service_host for selections in result} == {'h2'}


def test_claimed_instances_join_the_host():
    spec = _spec('anti-affinity', members=UUIDS[:1])
    hosts = _hosts()
    [[chosen, *_]] = _select(spec, hosts, 1)
    host = next(h for h in hosts if h.host == chosen.service_host)
    [instance] = host.instances.values()
    assert instance.uuid == UUIDS[0]
    assert (instance.vm_state, instance.task_state) == ('building',
                                                        'scheduling')
    assert instance.group_uuids == {GROUP}
    assert instance.flavor.memory_mb == spec.flavor.memory_mb
    assert (host.num_instances, host.num_io_ops) == (1, 1)


def test_members_placed_since_the_conductor_read_the_group_count():
    """Another request of the group was decided here after the conductor
    filled this one's group: its member is on h2 in memory only."""
    hosts = _hosts()
    earlier = host_state.HostInstance('other', 'project', 'building',
                                      'scheduling', None, {},
                                      frozenset([GROUP]))
    hosts[2].set_instances([earlier])
    spec = _spec('anti-affinity', members=[UUIDS[0]])
    [[chosen, *_]] = _select(spec, hosts, 1)
    assert chosen.service_host == 'h1'
    assert spec.instance_group.members == [UUIDS[0], 'other']
    assert spec.instance_group.hosts[0] == 'h2'


def test_a_member_claimed_before_its_host_is_recorded_holds_the_group():
    """The conductor read the group after the first member joined it but
    before its host was recorded: the member is listed, its host is not.
    The scheduler's claim of it on h1 (in memory) must still keep the
    affinity group on h1, not on the roomiest host."""
    hosts = _hosts()
    first = host_state.HostInstance(UUIDS[0], 'project', 'building',
                                    'scheduling', None, {},
                                    frozenset([GROUP]))
    hosts[1].set_instances([first])
    spec = _spec('affinity', members=[UUIDS[0], UUIDS[1]])
    [[chosen, *_]] = _select(spec, hosts, 1)
    assert chosen.service_host == 'h1'
    assert spec.instance_group.hosts[0] == 'h1'
    assert spec.instance_group.members == [UUIDS[0], UUIDS[1]]


def test_prefilters_run_before_placement_and_explain():
    hosts = _hosts()
    hosts[0].traits = {os_traits.COMPUTE_STATUS_DISABLED}
    hosts[1].provider_aggregates = {'az-agg'}
    prefilters = [
        request_filter.Prefilter('compute_status_filter',
                                 forbidden_traits={
                                     os_traits.COMPUTE_STATUS_DISABLED},
                                 forbidden_label='disabled'),
        request_filter.Prefilter('map_az_to_placement_aggregate',
                                 member_of={'az-agg'},
                                 member_label='availability zone az1')]
    [[chosen, *_]] = _select(fakes.spec(), hosts, 1, prefilters=prefilters)
    assert chosen.service_host == 'h1'
    hosts[1].traits = {os_traits.COMPUTE_STATUS_DISABLED}
    with pytest.raises(exception.NoValidHost) as err:
        _select(fakes.spec(memory_mb=100000), hosts, 1,
                prefilters=prefilters)
    message = err.value.format_message()
    assert 'compute_status_filter: 3 -> 1 (2 disabled)' in message
    assert ('map_az_to_placement_aggregate: 1 -> 0 (1 not in '
            'availability zone az1)') in message
    # The capacity step never ran: nothing was left for it.
    assert 'placement (' not in message


def test_spec_without_group_is_untouched():
    spec = fakes.spec()
    _select(spec, _hosts(), 1)
    assert not spec.obj_attr_is_set('instance_group')
