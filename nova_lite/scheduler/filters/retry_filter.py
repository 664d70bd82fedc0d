"""RetryFilter: not the hosts a rescheduled build already failed on
(seed 002)."""

from nova_lite.scheduler import filters
from nova_lite.scheduler import utils


def _pair(entry):
    """(host, node) of a retry entry: a [host, node] list, or a compute
    node record (``host``, ``hypervisor_hostname``)."""
    if isinstance(entry, (list, tuple)):
        return tuple(entry[:2])
    return (getattr(entry, 'host', None),
            getattr(entry, 'hypervisor_hostname', None))


class RetryFilter(filters.BaseHostFilter):
    """Passes nodes not in ``spec_obj.retry.hosts``, the [host, node]
    pairs a rescheduled request was already tried on; a request that was
    never rescheduled passes every node. Only useful with
    ``[scheduler] max_attempts`` above 1. Rejection reason: "already
    tried".
    """

    run_filter_once_per_request = True

    @staticmethod
    def _tried(spec_obj):
        retry = utils.spec_field(spec_obj, 'retry')
        hosts = utils.spec_field(retry, 'hosts') if retry else None
        return {_pair(entry) for entry in hosts or ()}

    def host_passes(self, host_state, spec_obj):
        tried = self._tried(spec_obj)
        return (host_state.host, host_state.nodename) not in tried

    def filter_all(self, host_states, spec_obj):
        tried = self._tried(spec_obj)
        return [h for h in host_states if (h.host, h.nodename) not in tried]

    def filter_population(self, population, spec_obj):
        passed = True
        for pair in self._tried(spec_obj):
            if len(pair) == 2:
                passed = passed & ~(population.hosts_named([pair[0]])
                                    & population.nodes_named([pair[1]]))
        return passed

    def rejection_reason(self, host_state, spec_obj):
        if self.host_passes(host_state, spec_obj):
            return None
        return 'already tried'
