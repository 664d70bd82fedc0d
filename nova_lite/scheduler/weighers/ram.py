"""RAMWeigher: prefer hosts with the most free RAM (or least, to stack)."""

from nova_lite.scheduler.weighers import rules


class RAMWeigher(rules.NumbersWeigher):
    """Weighs a host by its free_ram_mb: with a positive
    ``ram_weight_multiplier`` the host with the most free RAM comes first
    (spreading); with a negative one, the host with the least (stacking).
    Free RAM below zero (overcommitted hosts) counts as zero.
    """

    minval = 0
    reads = ('free_ram_mb',)
    multiplier_key = 'ram_weight_multiplier'
