"""IoOpsFilter: hosts not too busy with I/O-heavy operations."""

from nova_lite.conf import CONF
from nova_lite.scheduler import filters


def io_ops_rule(num_io_ops, limit):
    """The I/O rule, for one host's count and for a whole column alike:
    True where the host is too busy (``limit`` or more operations)."""
    return num_io_ops >= limit


class IoOpsFilter(filters.BaseHostFilter):
    """Passes hosts with fewer than ``max_io_ops_per_host`` I/O-heavy
    operations in progress (``num_io_ops``: instances building, or
    resizing, migrating, rebuilding, snapshotting, backing up, rescuing,
    unshelving). Rejection reason: "have <max> or more I/O ops".
    """

    # Its answer for a host depends on that host alone (see
    # BaseHostFilter.incremental).
    incremental = True

    population_twins = filters.BaseHostFilter.population_twins + (
        ('_get_max_io_ops_per_host', '_max_io_ops_population'),)

    def _get_max_io_ops_per_host(self, host_state, spec_obj):
        return CONF.filter_scheduler.max_io_ops_per_host

    def _max_io_ops_population(self, population, spec_obj):
        """The limit of every row (an array, or one number)."""
        return CONF.filter_scheduler.max_io_ops_per_host

    def filter_population(self, population, spec_obj, among=None):
        return ~io_ops_rule(
            population.column('num_io_ops'),
            self._max_io_ops_population(population, spec_obj))

    def _limit_if_busy(self, host_state, spec_obj):
        limit = self._get_max_io_ops_per_host(host_state, spec_obj)
        return limit if io_ops_rule(host_state.num_io_ops, limit) else None

    def host_passes(self, host_state, spec_obj):
        return self._limit_if_busy(host_state, spec_obj) is None

    def rejection_reason(self, host_state, spec_obj):
        limit = self._limit_if_busy(host_state, spec_obj)
        return None if limit is None else 'have %d or more I/O ops' % limit
