"""AggregateDiskFilter: DiskFilter with a per-aggregate ratio (seed 002)."""

from nova_lite.scheduler.filters import disk_filter
from nova_lite.scheduler import utils


class AggregateDiskFilter(disk_filter.BaseDiskFilter):
    """BaseDiskFilter with the smallest ``disk_allocation_ratio`` in the
    metadata of the host's aggregates, falling back to the ratio of the
    host's DISK_GB inventory (also when a value is not a number)."""

    def _get_disk_allocation_ratio(self, host_state, spec_obj):
        return utils.aggregate_min(host_state, 'disk_allocation_ratio',
                                   host_state.disk_allocation_ratio,
                                   cast_to=float)

    def _disk_ratio_population(self, population, spec_obj):
        key = 'disk_allocation_ratio'
        return population.aggregate_min(key, population.column(key),
                                        cast_to=float)
