import pytest

from nova_lite.scheduler.filters import compute_filter
from nova_lite.scheduler import host_state

from .. import fakes


@pytest.mark.parametrize('up,disabled,passes,reason', [
    (True, False, True, None),
    (False, False, False, 'down'),
    (True, True, False, 'disabled'),
    (False, True, False, 'disabled'),
])
def test_service_state(up, disabled, passes, reason):
    host = fakes.host(up=up, disabled=disabled)
    flt = compute_filter.ComputeFilter()
    spec = fakes.spec()
    assert flt.host_passes(host, spec) is passes
    assert flt.rejection_reason(host, spec) == reason


def test_host_without_service_is_down():
    host = host_state.HostState.from_records(
        fakes.compute_node('00000000-0000-0000-0000-000000000001', 'h1'),
        None, fakes.summary('00000000-0000-0000-0000-000000000001'))
    flt = compute_filter.ComputeFilter()
    assert not flt.host_passes(host, fakes.spec())
    assert flt.rejection_reason(host, fakes.spec()) == 'down'


def test_summary_counts_down_and_disabled():
    hosts = ([fakes.host(up=False) for _ in range(3)]
             + [fakes.host(disabled=True)])
    flt = compute_filter.ComputeFilter()
    assert (flt.summarize_rejections(hosts, fakes.spec())
            == '3 down, 1 disabled')


def test_runs_once_per_request():
    assert compute_filter.ComputeFilter.run_filter_once_per_request
