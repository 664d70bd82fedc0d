"""IoOpsFilter and AggregateIoOpsFilter."""

import pytest

from nova_lite.scheduler.filters import aggregate_io_ops_filter
from nova_lite.scheduler.filters import io_ops_filter

from .. import fake_hosts


@pytest.mark.parametrize('io_ops,expected', [(0, True), (7, True),
                                             (8, False), (9, False)])
def test_default_limit_is_eight(io_ops, expected):
    host = fake_hosts.host(num_io_ops=io_ops)
    assert io_ops_filter.IoOpsFilter().host_passes(
        host, fake_hosts.spec()) is expected


def test_limit_from_option_and_reason(conf):
    conf.config(group='filter_scheduler', max_io_ops_per_host=2)
    flt = io_ops_filter.IoOpsFilter()
    host = fake_hosts.host(num_io_ops=2)
    assert not flt.host_passes(host, fake_hosts.spec())
    assert flt.rejection_reason(host, fake_hosts.spec()) == (
        'have 2 or more I/O ops')
    assert flt.summarize_rejections([host, host], fake_hosts.spec()) == (
        '2 have 2 or more I/O ops')


def test_aggregate_limit_minimum_wins():
    host = fake_hosts.host(num_io_ops=3, aggregates=[
        fake_hosts.aggregate('a', max_io_ops_per_host='10'),
        fake_hosts.aggregate('b', max_io_ops_per_host='3')])
    flt = aggregate_io_ops_filter.AggregateIoOpsFilter()
    assert not flt.host_passes(host, fake_hosts.spec())
    assert flt.rejection_reason(host, fake_hosts.spec()) == (
        'have 3 or more I/O ops')


def test_aggregate_limit_may_raise_the_option():
    host = fake_hosts.host(num_io_ops=20, aggregates=[
        fake_hosts.aggregate('a', max_io_ops_per_host='30')])
    assert aggregate_io_ops_filter.AggregateIoOpsFilter().host_passes(
        host, fake_hosts.spec())
    assert not io_ops_filter.IoOpsFilter().host_passes(
        host, fake_hosts.spec())


@pytest.mark.parametrize('metadata', [None, 'lots'])
def test_aggregate_falls_back_to_option(conf, metadata):
    conf.config(group='filter_scheduler', max_io_ops_per_host=5)
    aggregates = ([fake_hosts.aggregate('a', max_io_ops_per_host=metadata)]
                  if metadata else [])
    flt = aggregate_io_ops_filter.AggregateIoOpsFilter()
    assert flt.host_passes(fake_hosts.host(num_io_ops=4,
                                           aggregates=aggregates),
                           fake_hosts.spec())
    assert not flt.host_passes(fake_hosts.host(num_io_ops=5,
                                               aggregates=aggregates),
                               fake_hosts.spec())
