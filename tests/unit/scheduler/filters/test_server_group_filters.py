"""ServerGroup(Anti)AffinityFilter and the older Group(Anti)AffinityFilter."""

import pytest

from nova_lite import objects
from nova_lite.scheduler.filters import group_affinity_filter
from nova_lite.scheduler.filters import group_anti_affinity_filter
from nova_lite.scheduler.filters import server_group_affinity_filter as aff
from nova_lite.scheduler.filters import server_group_anti_affinity_filter \
    as anti

from .. import fake_hosts
from .. import fakes

M = ['11111111-0000-4000-8000-00000000000%d' % i for i in range(6)]


def _hosts():
    return [fake_hosts.host('h1', instances=[M[0], 'stranger']),
            fake_hosts.host('h2', instances=[M[1], M[2]]),
            fake_hosts.host('h3', instances=['stranger2']),
            fake_hosts.host('h4')]


def _kept(flt, group, **spec_args):
    spec = fake_hosts.spec(instance_group=group, **spec_args)
    return fake_hosts.names(flt.filter_all(_hosts(), spec))


ALL = ['h1', 'h2', 'h3', 'h4']


@pytest.mark.parametrize('group,expected', [
    (None, ALL),
    (fake_hosts.Group('affinity'), ALL),        # nothing placed yet
    (fake_hosts.Group('affinity', hosts=['h2']), ['h2']),
    (fake_hosts.Group('affinity', hosts=['h1', 'h2']), ['h1', 'h2']),
    (fake_hosts.Group('anti-affinity', hosts=['h2']), ALL),
    (fake_hosts.Group('soft-affinity', hosts=['h2']), ALL),
])
def test_affinity(group, expected):
    assert _kept(aff.ServerGroupAffinityFilter(), group) == expected


@pytest.mark.parametrize('group,expected', [
    (None, ALL),
    (fake_hosts.Group('affinity', members=M[:3]), ALL),
    (fake_hosts.Group('anti-affinity', members=M[:3]), ['h3', 'h4']),
    (fake_hosts.Group('anti-affinity', members=M[:3],
                      rules={'max_server_per_host': 2}), ['h1', 'h3', 'h4']),
    (fake_hosts.Group('anti-affinity', members=M[:3],
                      rules={'max_server_per_host': 3}), ALL),
    (fake_hosts.Group('anti-affinity', members=[]), ALL),
    (fake_hosts.Group('soft-anti-affinity', members=M[:3]), ALL),
])
def test_anti_affinity(group, expected):
    assert _kept(anti.ServerGroupAntiAffinityFilter(), group) == expected


def test_a_move_may_stay_on_its_own_host():
    # Resizing M[1] may consider h2, where it runs.
    group = fake_hosts.Group('anti-affinity', members=M[:3])
    assert _kept(anti.ServerGroupAntiAffinityFilter(), group,
                 instance_uuid=M[1]) == ['h2', 'h3', 'h4']


def test_later_instances_of_one_request_keep_apart():
    # Instance 2 of a request whose spec names instance 1 (now on h2):
    # the move shortcut must not let it join instance 1.
    group = fake_hosts.Group('anti-affinity', members=M[:3])
    assert _kept(anti.ServerGroupAntiAffinityFilter(), group,
                 instance_uuid=M[1], num_instances=2) == ['h3', 'h4']


def test_placed_instances_count_as_they_are_added():
    flt = anti.ServerGroupAntiAffinityFilter()
    group = fake_hosts.Group('anti-affinity', members=M[:4])
    spec = fake_hosts.spec(instance_group=group)
    host = fake_hosts.host('h4')
    assert flt.host_passes(host, spec)
    # Replaced whole, as the host manager does: the dict is made at
    # each read from the packed instances.
    host.instances = {**host.instances,
                      M[3]: fake_hosts.HostInstance(uuid=M[3])}
    assert not flt.host_passes(host, spec)


def test_reasons():
    group = fake_hosts.Group('anti-affinity', members=M[:3], name='web')
    spec = fake_hosts.spec(instance_group=group)
    flt = anti.ServerGroupAntiAffinityFilter()
    hosts = _hosts()
    assert flt.rejection_reason(hosts[1], spec) == 'run 2 of group web'
    assert flt.summarize_rejections(hosts[:2], spec) == (
        '1 run 1 of group web, 1 run 2 of group web')
    group = fake_hosts.Group('affinity', hosts=['h2'], name='db')
    spec = fake_hosts.spec(instance_group=group)
    assert aff.ServerGroupAffinityFilter().rejection_reason(
        hosts[0], spec) == 'not a host of group db'


def test_bad_rule_means_one_per_host():
    group = fake_hosts.Group('anti-affinity', members=M[:3],
                             rules={'max_server_per_host': 'many'})
    assert _kept(anti.ServerGroupAntiAffinityFilter(), group) == [
        'h3', 'h4']


def test_request_spec_without_group_field():
    # A RequestSpec of a version without instance_group passes all.
    spec = fake_hosts.spec()
    assert aff.ServerGroupAffinityFilter().host_passes(_hosts()[0], spec)
    assert anti.ServerGroupAntiAffinityFilter().host_passes(_hosts()[0],
                                                            spec)


def test_legacy_group_affinity_is_the_server_group_filter():
    flt = group_affinity_filter.GroupAffinityFilter()
    assert isinstance(flt, aff.ServerGroupAffinityFilter)
    group = fake_hosts.Group('affinity', hosts=['h2'])
    assert _kept(flt, group) == ['h2']


def test_legacy_group_anti_affinity_uses_the_host_list():
    flt = group_anti_affinity_filter.GroupAntiAffinityFilter()
    group = fake_hosts.Group('anti-affinity', hosts=['h1', 'h3'],
                             rules={'max_server_per_host': 5}, name='g')
    assert _kept(flt, group) == ['h2', 'h4']
    spec = fake_hosts.spec(instance_group=group)
    assert flt.rejection_reason(_hosts()[0], spec) == 'a host of group g'
    assert _kept(flt, fake_hosts.Group('affinity', hosts=['h1'])) == ALL
    assert _kept(flt, None) == ALL


@pytest.mark.skipif('instance_group' not in objects.RequestSpec.fields,
                    reason='RequestSpec without instance_group')
def test_real_request_spec_and_instance_group():
    group = objects.InstanceGroup(uuid=M[5], name='web',
                                  policy='anti-affinity', members=M[:3],
                                  hosts=['h1', 'h2'], rules={})
    spec = fakes.spec(instance_group=group)
    flt = anti.ServerGroupAntiAffinityFilter()
    assert fake_hosts.names(flt.filter_all(_hosts(), spec)) == ['h3', 'h4']
    group.policy = 'affinity'
    assert fake_hosts.names(aff.ServerGroupAffinityFilter().filter_all(
        _hosts(), spec)) == ['h1', 'h2']


def test_max_server_per_host_zero_is_not_clamped():
    # Issue 11, case 7: the API accepts "0"; Nova compares the members on
    # a host with 0, so no host passes but the one running the instance
    # being moved.
    group = fake_hosts.Group('anti-affinity', members=M[:3],
                             rules={'max_server_per_host': '0'})
    flt = anti.ServerGroupAntiAffinityFilter()
    assert _kept(flt, group) == []
    assert _kept(flt, group, instance_uuid=M[1]) == ['h2']
    assert anti.max_server_per_host(group) == 0
