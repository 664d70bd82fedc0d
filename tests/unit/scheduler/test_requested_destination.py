"""A move's named host (RequestSpec.requested_destination): the only
candidate, still judged by every filter, unlike a forced host; on the
whole-population path and host by host alike."""

import pytest

from nova_lite import exception
from tests.unit.scheduler import fakes
from tests.unit.scheduler import test_filter_scheduler as base


@pytest.fixture(params=[True, False], ids=['population', 'host-by-host'])
def scheduler(request):
    sched = base._scheduler()
    sched.whole_population = request.param
    return sched


def _spec(host, **kwargs):
    return fakes.spec(requested_destination={'host': host, 'node': None},
                      **kwargs)


def test_the_named_host_is_chosen_over_better_weighed_ones(scheduler):
    hosts = base._ram_hosts(8192, 1024, 4096)
    result = base._select(hosts, _spec('H1'), scheduler=scheduler)
    assert base._names(result[0]) == ['h1']


def test_the_named_host_still_goes_through_the_filters(scheduler):
    hosts = [fakes.host('down', memory_mb=65536, up=False),
             fakes.host('up', memory_mb=4096)]
    with pytest.raises(exception.NoValidHost) as info:
        base._select(hosts, _spec('down'), scheduler=scheduler)
    message = info.value.format_message()
    assert 'requested hosts: 2 -> 1 (1 not the requested destination)' in (
        message)
    assert 'ComputeFilter: 1 -> 0' in message


def test_the_named_host_and_the_ignored_source_together(scheduler):
    hosts = base._ram_hosts(8192, 1024)
    with pytest.raises(exception.NoValidHost):
        base._select(hosts, _spec('h0', ignore_hosts=['h0']),
                     scheduler=scheduler)


def _node_spec(host, node):
    return fakes.spec(requested_destination={'host': host, 'node': node})


def test_a_named_node_alone_is_the_only_candidate(scheduler):
    """2.74's hypervisor_hostname without a host."""
    hosts = base._ram_hosts(8192, 1024, 4096)
    result = base._select(hosts, _node_spec(None, 'H2'),
                          scheduler=scheduler)
    assert base._names(result[0]) == ['h2']


def test_a_named_host_and_node_must_both_match(scheduler):
    hosts = base._ram_hosts(8192, 1024)
    with pytest.raises(exception.NoValidHost) as info:
        base._select(hosts, _node_spec('h0', 'h1'), scheduler=scheduler)
    assert '1 not the requested destination node' in (
        info.value.format_message())
