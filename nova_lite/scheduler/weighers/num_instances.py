"""NumInstancesWeigher: pack onto or spread over hosts by instance count."""

from nova_lite.scheduler.weighers import rules


class NumInstancesWeigher(rules.NumbersWeigher):
    """Weighs a host by ``num_instances``. The default
    ``num_instances_weight_multiplier`` of 0.0 leaves the order alone; a
    positive one packs (hosts with the most instances first), a negative
    one spreads (the fewest first).
    """

    reads = ('num_instances',)
    multiplier_key = 'num_instances_weight_multiplier'
