"""BuildFailureWeigher: weigh down hosts whose recent builds failed."""

from nova_lite.scheduler.weighers import rules


class BuildFailureWeigher(rules.NumbersWeigher):
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

    reads = ('failed_builds',)
    multiplier_key = 'build_failure_weight_multiplier'

    def adjust_multiplier(self, value):
        return -value
