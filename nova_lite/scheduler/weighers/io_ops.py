"""IoOpsWeigher: prefer hosts with fewer I/O-heavy operations (or more)."""

from nova_lite.conf import CONF
from nova_lite.scheduler import utils
from nova_lite.scheduler import weighers


class IoOpsWeigher(weighers.BaseHostWeigher):
    """Weighs a host by ``num_io_ops``, its instances building or in an
    I/O-heavy task state (resize_migrating, rebuilding, resize_prep,
    image_snapshot, image_backup, rescuing, unshelving). With the default
    negative ``io_ops_weight_multiplier`` the least busy host comes
    first; a positive one prefers the busiest. ``minval`` is 0, as in
    Nova: weights are normalised against 0, not against the least busy
    candidate, so hosts with 2 and 4 operations weigh 0.5 and 1.0.
    """

    minval = 0

    def weight_multiplier(self, host_state):
        return utils.get_weight_multiplier(
            host_state, 'io_ops_weight_multiplier',
            CONF.filter_scheduler.io_ops_weight_multiplier)

    def _weigh_object(self, host_state, weight_properties):
        return host_state.num_io_ops

    def multiplier_population(self, population):
        return population.aggregate_min(
            'io_ops_weight_multiplier',
            CONF.filter_scheduler.io_ops_weight_multiplier)

    def weigh_population(self, population, spec_obj):
        return population.column('num_io_ops')
