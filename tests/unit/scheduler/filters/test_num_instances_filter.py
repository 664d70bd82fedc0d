"""NumInstancesFilter and AggregateNumInstancesFilter."""

import pytest

from nova_lite.scheduler.filters import aggregate_num_instances_filter
from nova_lite.scheduler.filters import num_instances_filter

from .. import fake_hosts


@pytest.mark.parametrize('count,expected', [(0, True), (49, True),
                                            (50, False), (51, False)])
def test_default_limit_is_fifty(count, expected):
    host = fake_hosts.host(num_instances=count)
    assert num_instances_filter.NumInstancesFilter().host_passes(
        host, fake_hosts.spec()) is expected


def test_option_and_reason(conf):
    conf.config(group='filter_scheduler', max_instances_per_host=1)
    flt = num_instances_filter.NumInstancesFilter()
    host = fake_hosts.host(num_instances=1)
    assert not flt.host_passes(host, fake_hosts.spec())
    assert flt.rejection_reason(host, fake_hosts.spec()) == (
        'have 1 or more instances')
    assert flt.rejection_reason(fake_hosts.host(), fake_hosts.spec()) is None


def test_aggregate_limit_minimum_wins_else_option(conf):
    conf.config(group='filter_scheduler', max_instances_per_host=10)
    flt = aggregate_num_instances_filter.AggregateNumInstancesFilter()
    limited = [fake_hosts.aggregate('a', max_instances_per_host='4'),
               fake_hosts.aggregate('b', max_instances_per_host='2')]
    assert flt.host_passes(fake_hosts.host(num_instances=1,
                                           aggregates=limited),
                           fake_hosts.spec())
    assert not flt.host_passes(fake_hosts.host(num_instances=2,
                                               aggregates=limited),
                               fake_hosts.spec())
    assert flt.host_passes(fake_hosts.host(num_instances=9),
                           fake_hosts.spec())
    assert not flt.host_passes(fake_hosts.host(num_instances=10),
                               fake_hosts.spec())
