"""AllHostsFilter: keeps every host."""

from nova_lite.scheduler import filters


class AllHostsFilter(filters.BaseHostFilter):
    """Passes every host: a no-op (seed 000)."""

    # Its answer for a host depends on that host alone (see
    # BaseHostFilter.incremental).
    incremental = True

    run_filter_once_per_request = True

    def host_passes(self, host_state, spec_obj):
        return True

    def filter_population(self, population, spec_obj, among=None):
        return True
