"""SchedulerManager with prefilters: zones and disabled computes from
the host manager's view, end to end over a fake loader."""

import os_traits
import oslo_messaging as messaging
import pytest

from nova_lite import objects
from nova_lite.scheduler import host_manager
from nova_lite.scheduler import manager

from . import fakes

U = ['00000000-0000-0000-0000-0000000000%02d' % i for i in range(1, 10)]
AGG = 'aaaaaaaa-0000-4000-8000-000000000001'


def _manager():
    nodes = [fakes.compute_node(U[i], 'h%d' % i) for i in range(3)]
    summaries = {U[0]: fakes.summary(U[0], memory_mb=65536),
                 U[1]: fakes.summary(U[1], memory_mb=4096,
                                     aggregates={AGG}),
                 U[2]: fakes.summary(U[2], memory_mb=8192,
                                     aggregates={AGG})}
    aggregate = objects.Aggregate(uuid=AGG, name='rack', hosts=['h1', 'h2'],
                                  metadata={'availability_zone': 'az1'})
    loader = fakes.FakeLoader(nodes, [fakes.service('h%d' % i)
                                      for i in range(3)], summaries,
                              [aggregate])
    return loader, manager.SchedulerManager(
        host='sched1', host_manager=host_manager.HostManager(loader=loader),
        claimer_factory=lambda context: fakes.FakeClaimer())


def _hosts(result):
    return [[s.service_host for s in r] for r in result]


def test_zone_request_lands_in_the_zone_only():
    _loader, mgr = _manager()
    result = mgr.select_destinations(
        None, fakes.spec(availability_zone='az1'), [U[5]])
    assert _hosts(result) == [['h2', 'h1']]
    assert result[0][0].availability_zone == 'az1'
    # Without a zone the biggest host, in the default zone, wins.
    result = mgr.select_destinations(None, fakes.spec(), [U[6]])
    assert _hosts(result)[0][0] == 'h0'
    assert result[0][0].availability_zone == 'nova'


def test_disabled_compute_gets_nothing():
    loader, mgr = _manager()
    loader.summaries_[U[2]].traits.add(os_traits.COMPUTE_STATUS_DISABLED)
    mgr.update_provider_states(None, [U[2]])
    result = mgr.select_destinations(
        None, fakes.spec(availability_zone='az1'), [U[5]])
    assert _hosts(result) == [['h1']]
    loader.summaries_[U[1]].traits.add(os_traits.COMPUTE_STATUS_DISABLED)
    mgr.update_provider_states(None, [U[1]])
    with pytest.raises(messaging.ExpectedException) as info:
        mgr.select_destinations(
            None, fakes.spec(availability_zone='az1'), [U[6]])
    message = info.value.exc_info[1].format_message()
    assert message.endswith(
        'map_az_to_placement_aggregate: 3 -> 2 (1 not in availability '
        'zone az1); compute_status_filter: 2 -> 0 (2 disabled)'), message
