import pytest

from nova_lite.scheduler.filters import disk_filter

from .. import fakes


def test_requested_disk_counts_root_ephemeral_and_swap():
    spec = fakes.spec(root_gb=10, ephemeral_gb=5, swap=512)
    assert disk_filter.requested_disk_mb(spec.flavor) == 15 * 1024 + 512


@pytest.mark.parametrize('used_gb,ratio,passes', [
    (0, 1.0, True),
    (10, 1.0, True),        # 10 GB left for 10 GB
    (11, 1.0, False),
    (20, 1.5, True),        # 30 - 20 = 10
    (21, 1.5, False),
])
def test_usable_disk_against_flavor(used_gb, ratio, passes):
    host = fakes.host(disk_gb=20, used={'DISK_GB': used_gb},
                      disk_ratio=ratio)
    spec = fakes.spec(root_gb=5, ephemeral_gb=5)
    assert disk_filter.DiskFilter().host_passes(host, spec) is passes


def test_swap_in_mb_can_tip_the_balance():
    host = fakes.host(disk_gb=20, used={'DISK_GB': 10})
    flt = disk_filter.DiskFilter()
    assert flt.host_passes(host, fakes.spec(root_gb=10, swap=0))
    assert not flt.host_passes(host, fakes.spec(root_gb=10, swap=1))


def test_no_overcommit_against_itself():
    host = fakes.host(disk_gb=10, disk_ratio=10.0)
    flt = disk_filter.DiskFilter()
    spec = fakes.spec(root_gb=11)
    assert not flt.host_passes(host, spec)
    assert (flt.rejection_reason(host, spec)
            == 'have less than %d MB in all' % (11 * 1024))


def test_summary_names_need_and_best():
    hosts = [fakes.host(disk_gb=20, used={'DISK_GB': used})
             for used in (15, 18)]
    flt = disk_filter.DiskFilter()
    assert (flt.summarize_rejections(hosts, fakes.spec(root_gb=10))
            == '2 need 10240 MB, best has 5120 MB')
