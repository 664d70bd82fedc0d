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
        return self.rejection_reason(host_state, spec_obj) is None

    def filter_population(self, population, spec_obj, among=None):
        tried = False
        for pair in self._tried(spec_obj):
            if len(pair) == 2:
                tried = tried | (population.hosts_named([pair[0]])
                                 & population.nodes_named([pair[1]]))
        return True if tried is False else ~tried

    def rejection_reason(self, host_state, spec_obj):
        tried = (host_state.host, host_state.nodename) in self._tried(
            spec_obj)
        return 'already tried' if tried else None
