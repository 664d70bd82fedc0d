"""CPUWeigher: prefer hosts with the most free VCPUs (or least, to stack)."""

from nova_lite.scheduler.filters import core_filter
from nova_lite.scheduler.weighers import rules


class CPUWeigher(rules.NumbersWeigher):
    """Weighs a host by its free VCPUs, vcpus_total * cpu_allocation_ratio
    - vcpus_used: with a positive ``cpu_weight_multiplier`` the host with
    the most free VCPUs comes first (spreading); with a negative one, the
    host with the fewest (stacking). Below zero counts as zero.
    """

    minval = 0
    reads = ('vcpus_total', 'vcpus_used', 'cpu_allocation_ratio')
    multiplier_key = 'cpu_weight_multiplier'
    # CoreFilter's count of free VCPUs.
    weight = staticmethod(core_filter.free_vcpus)
