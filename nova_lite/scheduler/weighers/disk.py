"""DiskWeigher: prefer hosts with the most free disk (or least, to stack)."""

from nova_lite.scheduler.weighers import rules


class DiskWeigher(rules.NumbersWeigher):
    """Weighs a host by its free_disk_mb: with a positive
    ``disk_weight_multiplier`` the host with the most free disk comes
    first (spreading); with a negative one, the host with the least
    (stacking). Below zero counts as zero.
    """

    minval = 0
    reads = ('free_disk_mb',)
    multiplier_key = 'disk_weight_multiplier'
