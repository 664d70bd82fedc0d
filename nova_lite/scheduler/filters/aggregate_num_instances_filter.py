"""AggregateNumInstancesFilter: NumInstancesFilter with a per-aggregate
limit."""

from nova_lite.conf import CONF
from nova_lite.scheduler.filters import num_instances_filter
from nova_lite.scheduler import utils


class AggregateNumInstancesFilter(num_instances_filter.NumInstancesFilter):
    """NumInstancesFilter whose limit is the smallest
    ``max_instances_per_host`` in the metadata of the host's aggregates,
    falling back to the ``[filter_scheduler] max_instances_per_host``
    option (also when a value is not an integer)."""

    def _get_max_instances_per_host(self, host_state, spec_obj):
        return utils.aggregate_min(
            host_state, 'max_instances_per_host',
            CONF.filter_scheduler.max_instances_per_host)

    def _max_instances_population(self, population, spec_obj):
        return population.aggregate_min(
            'max_instances_per_host',
            CONF.filter_scheduler.max_instances_per_host, cast_to=int)
