import pytest

from nova_lite.scheduler.filters import core_filter

from .. import fakes


@pytest.mark.parametrize('used,ratio,requested,passes', [
    (0, 1.0, 4, True),
    (4, 1.0, 4, True),      # 8 - 4 = 4
    (5, 1.0, 4, False),
    (12, 2.0, 4, True),     # 16 - 12 = 4
    (13, 2.0, 4, False),
    (0, 16.0, 9, False),    # more than the 8 physical CPUs
])
def test_free_vcpus_against_flavor(used, ratio, requested, passes):
    host = fakes.host(vcpus=8, used={'VCPU': used}, cpu_ratio=ratio)
    flt = core_filter.CoreFilter()
    assert flt.host_passes(host, fakes.spec(vcpus=requested)) is passes


def test_reserved_vcpus_count_as_used():
    host = fakes.host(vcpus=8, reserved={'VCPU': 6})
    assert host.vcpus_used == 6
    assert not core_filter.CoreFilter().host_passes(host, fakes.spec(vcpus=3))


def test_host_reporting_no_cpus_passes():
    host = fakes.host(vcpus=None)
    assert core_filter.CoreFilter().host_passes(host, fakes.spec(vcpus=64))


def test_reasons_and_summary():
    flt = core_filter.CoreFilter()
    spec = fakes.spec(vcpus=4)
    full = fakes.host(vcpus=8, used={'VCPU': 6})
    small = fakes.host(vcpus=2)
    assert flt.rejection_reason(full, spec) == 'need 4 VCPU'
    assert flt.rejection_reason(small, spec) == 'have fewer than 4 CPUs'
    assert flt.rejection_reason(fakes.host(), spec) is None
    assert (flt.summarize_rejections([full, small], spec)
            == '1 need 4 VCPU, best has 2 VCPU, 1 have fewer than 4 CPUs')
