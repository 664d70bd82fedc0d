"""AggregateCoreFilter: CoreFilter with a per-aggregate ratio (seed 002)."""

from nova_lite.scheduler.filters import core_filter
from nova_lite.scheduler import utils


class AggregateCoreFilter(core_filter.BaseCoreFilter):
    """BaseCoreFilter with the smallest ``cpu_allocation_ratio`` in the
    metadata of the host's aggregates, falling back to the ratio of the
    host's VCPU inventory (also when a value is not a number)."""

    def _get_cpu_allocation_ratio(self, host_state, spec_obj):
        return utils.aggregate_min(host_state, 'cpu_allocation_ratio',
                                   host_state.cpu_allocation_ratio,
                                   cast_to=float)

    def _cpu_ratio_population(self, population, spec_obj):
        key = 'cpu_allocation_ratio'
        return population.aggregate_min(key, population.column(key),
                                        cast_to=float)
