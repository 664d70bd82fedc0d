"""RetryFilter: not the hosts a rescheduled build already failed on
(seed 002)."""

from nova_lite.scheduler.filters import rules
from nova_lite.scheduler import host_inputs
from nova_lite.scheduler import utils


def _pair(entry):
    """(host, node) of a retry entry: a [host, node] list, or a compute
    node record (``host``, ``hypervisor_hostname``)."""
    if isinstance(entry, (list, tuple)):
        return tuple(entry[:2])
    return (getattr(entry, 'host', None),
            getattr(entry, 'hypervisor_hostname', None))


class RetryFilter(rules.InputsFilter):
    """Passes nodes not in ``spec_obj.retry.hosts``, the [host, node]
    pairs a rescheduled request was already tried on; a request that was
    never rescheduled passes every node. Only useful with
    ``[scheduler] max_attempts`` above 1. Rejection reason: "already
    tried".
    """

    run_filter_once_per_request = True

    def parse_request(self, spec_obj):
        """The (host, node) pairs tried, or EVERY_HOST."""
        retry = utils.spec_field(spec_obj, 'retry')
        hosts = utils.spec_field(retry, 'hosts') if retry else None
        tried = {_pair(entry) for entry in hosts or ()}
        return tried or rules.EVERY_HOST

    def reads(self, tried):
        return (host_inputs.NodeNamed(tried),)

    def fails(self, tried, was_tried):
        return was_tried

    def reason(self, tried, was_tried):
        return 'already tried'
