"""ComputeFilter: only hosts whose compute service is running and enabled."""

from nova_lite.scheduler import filters


class ComputeFilter(filters.BaseHostFilter):
    """Passes hosts whose compute service is enabled and up.

    Rejects a host whose service an administrator disabled ("disabled"),
    and one whose last heartbeat is older than ``service_down_time``, that
    is forced down, or that has no service record ("down").
    """

    # A service's state is read once per request by the host manager.
    run_filter_once_per_request = True

    def host_passes(self, host_state, spec_obj):
        service = host_state.service
        return (service is not None and not service['disabled']
                and host_state.service_up)

    def filter_population(self, population, spec_obj):
        return population.service_ok[:population.size]

    def rejection_reason(self, host_state, spec_obj):
        service = host_state.service
        if service is not None and service['disabled']:
            return 'disabled'
        if service is None or not host_state.service_up:
            return 'down'
        return None
