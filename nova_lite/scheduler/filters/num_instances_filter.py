"""NumInstancesFilter: hosts not already running too many instances."""

from nova_lite.conf import CONF
from nova_lite.scheduler import filters


class NumInstancesFilter(filters.BaseHostFilter):
    """Passes hosts with fewer than ``max_instances_per_host`` instances
    (``num_instances``), so one more fits under the limit. Rejection
    reason: "have <max> or more instances".
    """

    population_twins = filters.BaseHostFilter.population_twins + (
        ('_get_max_instances_per_host', '_max_instances_population'),)

    def _get_max_instances_per_host(self, host_state, spec_obj):
        return CONF.filter_scheduler.max_instances_per_host

    def _max_instances_population(self, population, spec_obj):
        """The limit of every row (an array, or one number)."""
        return CONF.filter_scheduler.max_instances_per_host

    def filter_population(self, population, spec_obj):
        limit = self._max_instances_population(population, spec_obj)
        return population.column('num_instances') < limit

    def host_passes(self, host_state, spec_obj):
        limit = self._get_max_instances_per_host(host_state, spec_obj)
        return host_state.num_instances < limit

    def rejection_reason(self, host_state, spec_obj):
        limit = self._get_max_instances_per_host(host_state, spec_obj)
        if host_state.num_instances < limit:
            return None
        return 'have %d or more instances' % limit
