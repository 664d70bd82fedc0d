"""HypervisorVersionWeigher: prefer the newest hypervisor (or oldest)."""

from nova_lite.conf import CONF
from nova_lite.scheduler import utils
from nova_lite.scheduler import weighers


class HypervisorVersionWeigher(weighers.BaseHostWeigher):
    """Weighs a host by its ``hypervisor_version`` (an integer; a host
    reporting none weighs 0): with the default positive
    ``hypervisor_version_weight_multiplier`` the newest comes first,
    with a negative one the oldest. Versions of different hypervisor
    types do not compare meaningfully; group such hosts in aggregates
    (seed 000).
    """

    def weight_multiplier(self, host_state):
        return utils.get_weight_multiplier(
            host_state, 'hypervisor_version_weight_multiplier',
            CONF.filter_scheduler.hypervisor_version_weight_multiplier)

    def _weigh_object(self, host_state, weight_properties):
        return host_state.hypervisor_version or 0

    def multiplier_population(self, population):
        return population.aggregate_min(
            'hypervisor_version_weight_multiplier',
            CONF.filter_scheduler.hypervisor_version_weight_multiplier)

    def weigh_population(self, population, spec_obj):
        return population.column('hypervisor_version')
