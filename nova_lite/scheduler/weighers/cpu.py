"""CPUWeigher: prefer hosts with the most free VCPUs (or least, to stack)."""

from nova_lite.conf import CONF
from nova_lite.scheduler import utils
from nova_lite.scheduler import weighers


class CPUWeigher(weighers.BaseHostWeigher):
    """Weighs a host by its free VCPUs, vcpus_total * cpu_allocation_ratio
    - vcpus_used: with a positive ``cpu_weight_multiplier`` the host with
    the most free VCPUs comes first (spreading); with a negative one, the
    host with the fewest (stacking). Below zero counts as zero.
    """

    minval = 0

    def weight_multiplier(self, host_state):
        return utils.get_weight_multiplier(
            host_state, 'cpu_weight_multiplier',
            CONF.filter_scheduler.cpu_weight_multiplier)

    def _weigh_object(self, host_state, weight_properties):
        return (host_state.vcpus_total * host_state.cpu_allocation_ratio
                - host_state.vcpus_used)

    def multiplier_population(self, population):
        return population.aggregate_min(
            'cpu_weight_multiplier',
            CONF.filter_scheduler.cpu_weight_multiplier)

    def weigh_population(self, population, spec_obj):
        return (population.column('vcpus_total')
                * population.column('cpu_allocation_ratio')
                - population.column('vcpus_used'))
