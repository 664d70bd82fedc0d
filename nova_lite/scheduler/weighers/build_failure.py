"""BuildFailureWeigher: weigh down hosts whose recent builds failed."""

from nova_lite.conf import CONF
from nova_lite.scheduler import utils
from nova_lite.scheduler import weighers


class BuildFailureWeigher(weighers.BaseHostWeigher):
    """Weighs a host by minus ``failed_builds``, the builds that failed
    on it since its last successful one: the fewer failures, the
    heavier. The large default ``build_failure_weight_multiplier``
    outweighs the other weighers, so a failing host is chosen only when
    no other fits, without removing it from rotation (seed 000).
    """

    def weight_multiplier(self, host_state):
        return utils.get_weight_multiplier(
            host_state, 'build_failure_weight_multiplier',
            CONF.filter_scheduler.build_failure_weight_multiplier)

    def _weigh_object(self, host_state, weight_properties):
        return -(getattr(host_state, 'failed_builds', 0) or 0)

    def multiplier_population(self, population):
        return population.aggregate_min(
            'build_failure_weight_multiplier',
            CONF.filter_scheduler.build_failure_weight_multiplier)

    def weigh_population(self, population, spec_obj):
        return -population.column('failed_builds')
