"""ComputeFilter: only hosts whose compute service is running and enabled."""

from nova_lite.scheduler import filters


def service_of(host_state):
    """(has a service record, disabled, up) of the host's compute
    service."""
    state = getattr(host_state, 'service_state', None)
    if state is not None:
        return state()
    service = getattr(host_state, 'service', None)
    return (service is not None,
            bool(service is not None and service['disabled']),
            bool(getattr(host_state, 'service_up', False)))


def service_failure(known, disabled, up):
    """The compute service rule, stated once: "disabled", "down", or
    None when the host passes. The population's ``service_ok`` column
    is this rule's answer per row."""
    if known and disabled:
        return 'disabled'
    if not (known and up):
        return 'down'
    return None


class ComputeFilter(filters.BaseHostFilter):
    """Passes hosts whose compute service is enabled and up.

    Rejects a host whose service an administrator disabled ("disabled"),
    and one whose last heartbeat is older than ``service_down_time``, that
    is forced down, or that has no service record ("down").
    """

    # Its answer for a host depends on that host alone (see
    # BaseHostFilter.incremental).
    incremental = True

    # A service's state is read once per request by the host manager.
    run_filter_once_per_request = True

    def host_passes(self, host_state, spec_obj):
        return self.rejection_reason(host_state, spec_obj) is None

    def filter_population(self, population, spec_obj, among=None):
        return population.service_ok[:population.size]

    def rejection_reason(self, host_state, spec_obj):
        return service_failure(*service_of(host_state))
