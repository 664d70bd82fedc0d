"""PCIWeigher: keep hosts with free PCI devices for requests needing them."""

import numpy as np
from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite.scheduler import utils
from nova_lite.scheduler import weighers

LOG = logging.getLogger(__name__)

# Beyond this many free devices a host is not scarce: 500 and 2000 free
# devices weigh the same, and the weight never reaches zero.
MAX_DEVS = 100


class PCIWeigher(weighers.BaseHostWeigher):
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

    _warned = False

    def weight_multiplier(self, host_state):
        value = utils.get_weight_multiplier(
            host_state, 'pci_weight_multiplier',
            CONF.filter_scheduler.pci_weight_multiplier)
        if value < 0:
            if not self._warned:
                self._warned = True
                LOG.warning('Ignoring negative pci_weight_multiplier %s '
                            'of host %s aggregates', value, host_state.host)
            return 0.0
        return value

    def multiplier_population(self, population):
        value = population.aggregate_min(
            'pci_weight_multiplier',
            CONF.filter_scheduler.pci_weight_multiplier)
        if np.ndim(value) == 0:
            return max(value, 0.0)
        if (value < 0).any():
            if not self._warned:
                self._warned = True
                LOG.warning('Ignoring negative pci_weight_multiplier of '
                            'some hosts\' aggregates')
            value = np.maximum(value, 0.0)
        return value

    def weigh_population(self, population, spec_obj):
        return MAX_DEVS - np.minimum(population.column('pci_free'),
                                     MAX_DEVS - 1)

    def _weigh_object(self, host_state, weight_properties):
        free = sum(pool.get('count', 0)
                   for pool in utils.pci_pools(host_state))
        return MAX_DEVS - min(free, MAX_DEVS - 1)
