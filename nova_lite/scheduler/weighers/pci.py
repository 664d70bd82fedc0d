"""PCIWeigher: keep hosts with free PCI devices for requests needing them."""

import numpy as np

from nova_lite.scheduler.weighers import rules

# Beyond this many free devices a host is not scarce: 500 and 2000 free
# devices weigh the same, and the weight never reaches zero.
MAX_DEVS = 100


class PCIWeigher(rules.PositiveMultiplier, rules.NumbersWeigher):
    """Weighs a host by MAX_DEVS - min(free PCI devices, MAX_DEVS - 1):
    the fewer free devices, the heavier. A request without PCI devices
    thus avoids PCI hosts; one with PCI devices (which
    PciPassthroughFilter or NUMATopologyFilter leaves only on hosts that
    have them) stacks onto the hosts with the fewest, keeping hosts with
    many free for requests that need many (seed 000).

    Only positive multipliers are meaningful: the option refuses
    negative values, and a negative ``pci_weight_multiplier`` in
    aggregate metadata counts as 0.0 (the weigher off for that host).
    """

    reads = ('pci_free',)
    multiplier_key = 'pci_weight_multiplier'

    @staticmethod
    def weight(free):
        return MAX_DEVS - np.minimum(free, MAX_DEVS - 1)
