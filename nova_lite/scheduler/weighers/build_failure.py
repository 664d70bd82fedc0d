"""BuildFailureWeigher: weigh down hosts whose recent builds failed."""

from nova_lite.conf import CONF
from nova_lite.scheduler import utils
from nova_lite.scheduler import weighers


class BuildFailureWeigher(weighers.BaseHostWeigher):
    """Weighs a host by ``failed_builds``, the builds that failed on it
    since its last successful one, with the *negated*
    ``build_failure_weight_multiplier`` (the aggregate minimum or the
    option, then negated, as Nova does): the more failures, the lighter.
    The large default outweighs the other weighers, so a failing host is
    chosen only when no other fits, without removing it from rotation
    (seed 000).

    The sign sits on the multiplier, not on the raw number, because the
    multiplier may differ per host (aggregate metadata): with the raw
    number negated, normalisation would give every host without failures
    the full weight times its own multiplier, so a host with a smaller
    per-aggregate multiplier would lose to one with the default.
    """

    def weight_multiplier(self, host_state):
        return -utils.get_weight_multiplier(
            host_state, 'build_failure_weight_multiplier',
            CONF.filter_scheduler.build_failure_weight_multiplier)

    def _weigh_object(self, host_state, weight_properties):
        return getattr(host_state, 'failed_builds', 0) or 0

    def multiplier_population(self, population):
        return -population.aggregate_min(
            'build_failure_weight_multiplier',
            CONF.filter_scheduler.build_failure_weight_multiplier)

    def weigh_population(self, population, spec_obj):
        return population.column('failed_builds')
