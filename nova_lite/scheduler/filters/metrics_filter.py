"""MetricsFilter: hosts reporting every metric the metrics weigher uses."""

from nova_lite.conf import CONF
from nova_lite.scheduler.filters import rules
from nova_lite.scheduler import utils


def weighed_metric_names():
    """The metric names of ``[metrics] weight_setting``."""
    return {name for name, _ratio in utils.parse_options(
        CONF.metrics.weight_setting, converter=float,
        name='[metrics] weight_setting')}


def metric_names_key(host_state):
    """What ``MetricsFilter`` reads of a host: its metrics' names."""
    return frozenset(getattr(host_state, 'metrics', None) or ())


class MetricsFilter(rules.RuleFilter):
    """Passes hosts whose ``metrics`` include every metric named in
    ``[metrics] weight_setting``, so MetricsWeigher never meets a host
    lacking one (with ``[metrics] required`` that would fail the
    request). With no weight_setting every host passes. Rejection reason:
    "lack metric <name>" (the first missing, alphabetically).
    """

    # Run for every instance of a request, as Nova's is: the hosts it
    # keeps are the same, but each instance's steps (and a NoValidHost's
    # explanation) show it.
    run_filter_once_per_request = False

    def parse_request(self, spec_obj):
        names = weighed_metric_names()
        return frozenset(names) if names else rules.EVERY_HOST

    def failure(self, host_state, names):
        missing = sorted(names.difference(metric_names_key(host_state)))
        return 'lack metric %s' % missing[0] if missing else None

    def partition(self, names):
        return 'metric names', metric_names_key
