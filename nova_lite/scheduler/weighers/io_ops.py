"""IoOpsWeigher: prefer hosts with fewer I/O-heavy operations (or more)."""

from nova_lite.scheduler.weighers import rules


class IoOpsWeigher(rules.NumbersWeigher):
    """Weighs a host by ``num_io_ops``, its instances building or in an
    I/O-heavy task state (resize_migrating, rebuilding, resize_prep,
    image_snapshot, image_backup, rescuing, unshelving). With the default
    negative ``io_ops_weight_multiplier`` the least busy host comes
    first; a positive one prefers the busiest. ``minval`` is 0, as in
    Nova: weights are normalised against 0, not against the least busy
    candidate, so hosts with 2 and 4 operations weigh 0.5 and 1.0.
    """

    minval = 0
    reads = ('num_io_ops',)
    multiplier_key = 'io_ops_weight_multiplier'
