"""RetryFilter."""

import pytest

from nova_lite import objects
from nova_lite.scheduler.filters import retry_filter

from .. import fake_hosts
from .. import fakes


def _hosts():
    return [fake_hosts.host('h1'), fake_hosts.host('h2'),
            fake_hosts.host('h3')]


def test_never_rescheduled_passes_all():
    flt = retry_filter.RetryFilter()
    assert len(flt.filter_all(_hosts(), fake_hosts.spec())) == 3


def test_tried_nodes_are_skipped():
    flt = retry_filter.RetryFilter()
    spec = fake_hosts.spec(retry=fake_hosts.Retry(
        [['h1', 'h1'], ['h3', 'h3']], num_attempts=2))
    assert fake_hosts.names(flt.filter_all(_hosts(), spec)) == ['h2']
    assert [flt.host_passes(h, spec) for h in _hosts()] == [
        False, True, False]
    assert flt.rejection_reason(_hosts()[0], spec) == 'already tried'


def test_same_host_other_node_is_not_tried():
    flt = retry_filter.RetryFilter()
    spec = fake_hosts.spec(retry=fake_hosts.Retry([['h1', 'h1-n1']]))
    assert flt.host_passes(fake_hosts.host('h1'), spec)


def test_compute_node_records_as_retry_entries():
    class Node:
        host = 'h2'
        hypervisor_hostname = 'h2'

    spec = fake_hosts.spec(retry=fake_hosts.Retry([Node()]))
    assert not retry_filter.RetryFilter().host_passes(
        fake_hosts.host('h2'), spec)


@pytest.mark.skipif('retry' not in objects.RequestSpec.fields,
                    reason='RequestSpec without retry')
def test_real_scheduler_retries():
    retry = objects.SchedulerRetries(num_attempts=1, hosts=[['h1', 'h1']])
    spec = fakes.spec(retry=retry)
    assert fake_hosts.names(retry_filter.RetryFilter().filter_all(
        _hosts(), spec)) == ['h2', 'h3']
