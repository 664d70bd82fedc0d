import pytest

from nova_lite.scheduler.filters import ram_filter

from .. import fakes


@pytest.mark.parametrize('used,ratio,passes', [
    (0, 1.0, True),          # 1024 free
    (512, 1.0, True),        # 512 usable == 512 requested
    (513, 1.0, False),       # 511 usable
    (1024, 1.5, True),       # 1536 - 1024 = 512
    (1025, 1.5, False),
    (1800, 2.0, False),      # 2048 - 1800 = 248
])
def test_usable_ram_against_flavor(used, ratio, passes):
    host = fakes.host(memory_mb=1024, used={'MEMORY_MB': used},
                      ram_ratio=ratio)
    flt = ram_filter.RamFilter()
    assert flt.host_passes(host, fakes.spec(memory_mb=512)) is passes


def test_reserved_memory_counts_as_used():
    host = fakes.host(memory_mb=1024, reserved={'MEMORY_MB': 600})
    assert host.free_ram_mb == 424
    assert not ram_filter.RamFilter().host_passes(
        host, fakes.spec(memory_mb=512))


def test_no_overcommit_against_itself():
    # 4096 * 2.0 leaves 8192 usable, but 6144 MB never fits in 4096 MB.
    host = fakes.host(memory_mb=4096, ram_ratio=2.0)
    flt = ram_filter.RamFilter()
    spec = fakes.spec(memory_mb=6144)
    assert not flt.host_passes(host, spec)
    assert flt.rejection_reason(host, spec) == 'have less than 6144 MB in all'


def test_summary_names_need_and_best():
    hosts = [fakes.host(memory_mb=65536, used={'MEMORY_MB': 65536 - free})
             for free in (1000, 16384, 200)]
    hosts.append(fakes.host(memory_mb=8192))
    flt = ram_filter.RamFilter()
    assert (flt.summarize_rejections(hosts, fakes.spec(memory_mb=32768))
            == '3 need 32768 MB, best has 16384 MB, '
               '1 have less than 32768 MB in all')


def test_passing_host_has_no_reason():
    assert ram_filter.RamFilter().rejection_reason(
        fakes.host(), fakes.spec()) is None
