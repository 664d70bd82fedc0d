"""RAMWeigher: prefer hosts with the most free RAM (or least, to stack)."""

from nova_lite.conf import CONF
from nova_lite.scheduler import utils
from nova_lite.scheduler import weighers


class RAMWeigher(weighers.BaseHostWeigher):
    """Weighs a host by its free_ram_mb: with a positive
    ``ram_weight_multiplier`` the host with the most free RAM comes first
    (spreading); with a negative one, the host with the least (stacking).
    Free RAM below zero (overcommitted hosts) counts as zero.
    """

    minval = 0

    def weight_multiplier(self, host_state):
        return utils.get_weight_multiplier(
            host_state, 'ram_weight_multiplier',
            CONF.filter_scheduler.ram_weight_multiplier)

    def _weigh_object(self, host_state, weight_properties):
        return host_state.free_ram_mb

    def multiplier_population(self, population):
        return population.aggregate_min(
            'ram_weight_multiplier',
            CONF.filter_scheduler.ram_weight_multiplier)

    def weigh_population(self, population, spec_obj):
        return population.column('free_ram_mb')
