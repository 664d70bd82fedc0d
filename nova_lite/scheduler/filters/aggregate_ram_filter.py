"""AggregateRamFilter: RamFilter with a per-aggregate ratio (seed 002)."""

from nova_lite.scheduler.filters import ram_filter
from nova_lite.scheduler import utils


class AggregateRamFilter(ram_filter.BaseRamFilter):
    """BaseRamFilter with the smallest ``ram_allocation_ratio`` in the
    metadata of the host's aggregates, falling back to the ratio of the
    host's MEMORY_MB inventory (also when a value is not a number)."""

    def _get_ram_allocation_ratio(self, host_state, spec_obj):
        return utils.aggregate_min(host_state, 'ram_allocation_ratio',
                                   host_state.ram_allocation_ratio,
                                   cast_to=float)

    def _ram_ratio_population(self, population, spec_obj):
        key = 'ram_allocation_ratio'
        return population.aggregate_min(key, population.column(key),
                                        cast_to=float)
