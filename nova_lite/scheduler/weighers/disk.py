"""DiskWeigher: prefer hosts with the most free disk (or least, to stack)."""

from nova_lite.conf import CONF
from nova_lite.scheduler import utils
from nova_lite.scheduler import weighers


class DiskWeigher(weighers.BaseHostWeigher):
    """Weighs a host by its free_disk_mb: with a positive
    ``disk_weight_multiplier`` the host with the most free disk comes
    first (spreading); with a negative one, the host with the least
    (stacking). Below zero counts as zero.
    """

    minval = 0

    def weight_multiplier(self, host_state):
        return utils.get_weight_multiplier(
            host_state, 'disk_weight_multiplier',
            CONF.filter_scheduler.disk_weight_multiplier)

    def _weigh_object(self, host_state, weight_properties):
        return host_state.free_disk_mb

    def multiplier_population(self, population):
        return population.aggregate_min(
            'disk_weight_multiplier',
            CONF.filter_scheduler.disk_weight_multiplier)

    def weigh_population(self, population, spec_obj):
        return population.column('free_disk_mb')
