"""HypervisorVersionWeigher: prefer the newest hypervisor (or oldest)."""

from nova_lite.scheduler.weighers import rules


class HypervisorVersionWeigher(rules.NumbersWeigher):
    """Weighs a host by its ``hypervisor_version`` (an integer; a host
    reporting none weighs 0): with the default positive
    ``hypervisor_version_weight_multiplier`` the newest comes first,
    with a negative one the oldest. Versions of different hypervisor
    types do not compare meaningfully; group such hosts in aggregates
    (seed 000).
    """

    reads = ('hypervisor_version',)
    multiplier_key = 'hypervisor_version_weight_multiplier'
