"""NumInstancesFilter: hosts not already running too many instances."""

from nova_lite.conf import CONF
from nova_lite.scheduler import filters


def instances_rule(num_instances, limit):
    """The instance count rule, for one host's count and for a whole
    column alike: True where the host is full (``limit`` or more
    instances)."""
    return num_instances >= limit


class NumInstancesFilter(filters.BaseHostFilter):
    """Passes hosts with fewer than ``max_instances_per_host`` instances
    (``num_instances``), so one more fits under the limit. Rejection
    reason: "have <max> or more instances".
    """

    # Its answer for a host depends on that host alone (see
    # BaseHostFilter.incremental).
    incremental = True

    population_twins = filters.BaseHostFilter.population_twins + (
        ('_get_max_instances_per_host', '_max_instances_population'),)

    def _get_max_instances_per_host(self, host_state, spec_obj):
        return CONF.filter_scheduler.max_instances_per_host

    def _max_instances_population(self, population, spec_obj):
        """The limit of every row (an array, or one number)."""
        return CONF.filter_scheduler.max_instances_per_host

    def filter_population(self, population, spec_obj, among=None):
        return ~instances_rule(
            population.column('num_instances'),
            self._max_instances_population(population, spec_obj))

    def _limit_if_full(self, host_state, spec_obj):
        limit = self._get_max_instances_per_host(host_state, spec_obj)
        return (limit if instances_rule(host_state.num_instances, limit)
                else None)

    def host_passes(self, host_state, spec_obj):
        return self._limit_if_full(host_state, spec_obj) is None

    def rejection_reason(self, host_state, spec_obj):
        limit = self._limit_if_full(host_state, spec_obj)
        return None if limit is None else 'have %d or more instances' % limit
