"""IoOpsFilter: hosts not too busy with I/O-heavy operations."""

from nova_lite.conf import CONF
from nova_lite.scheduler import filters


class IoOpsFilter(filters.BaseHostFilter):
    """Passes hosts with fewer than ``max_io_ops_per_host`` I/O-heavy
    operations in progress (``num_io_ops``: instances building, or
    resizing, migrating, rebuilding, snapshotting, backing up, rescuing,
    unshelving). Rejection reason: "have <max> or more I/O ops".
    """

    population_twins = filters.BaseHostFilter.population_twins + (
        ('_get_max_io_ops_per_host', '_max_io_ops_population'),)

    def _get_max_io_ops_per_host(self, host_state, spec_obj):
        return CONF.filter_scheduler.max_io_ops_per_host

    def _max_io_ops_population(self, population, spec_obj):
        """The limit of every row (an array, or one number)."""
        return CONF.filter_scheduler.max_io_ops_per_host

    def filter_population(self, population, spec_obj):
        limit = self._max_io_ops_population(population, spec_obj)
        return population.column('num_io_ops') < limit

    def host_passes(self, host_state, spec_obj):
        limit = self._get_max_io_ops_per_host(host_state, spec_obj)
        return host_state.num_io_ops < limit

    def rejection_reason(self, host_state, spec_obj):
        limit = self._get_max_io_ops_per_host(host_state, spec_obj)
        if host_state.num_io_ops < limit:
            return None
        return 'have %d or more I/O ops' % limit
