"""NumInstancesWeigher: pack onto or spread over hosts by instance count."""

from nova_lite.conf import CONF
from nova_lite.scheduler import utils
from nova_lite.scheduler import weighers


class NumInstancesWeigher(weighers.BaseHostWeigher):
    """Weighs a host by ``num_instances``. The default
    ``num_instances_weight_multiplier`` of 0.0 leaves the order alone; a
    positive one packs (hosts with the most instances first), a negative
    one spreads (the fewest first).
    """

    def weight_multiplier(self, host_state):
        return utils.get_weight_multiplier(
            host_state, 'num_instances_weight_multiplier',
            CONF.filter_scheduler.num_instances_weight_multiplier)

    def _weigh_object(self, host_state, weight_properties):
        return host_state.num_instances

    def multiplier_population(self, population):
        return population.aggregate_min(
            'num_instances_weight_multiplier',
            CONF.filter_scheduler.num_instances_weight_multiplier)

    def weigh_population(self, population, spec_obj):
        return population.column('num_instances')
