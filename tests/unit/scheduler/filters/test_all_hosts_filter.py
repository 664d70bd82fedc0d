from nova_lite.scheduler.filters import all_hosts_filter

from .. import fakes


def test_passes_every_host_even_down_and_full():
    hosts = [fakes.host('a', up=False), fakes.host('b', memory_mb=1)]
    flt = all_hosts_filter.AllHostsFilter()
    spec = fakes.spec(memory_mb=4096)
    assert all(flt.host_passes(h, spec) for h in hosts)
    assert flt.filter_all(hosts, spec) == hosts
    assert flt.run_filter_once_per_request
