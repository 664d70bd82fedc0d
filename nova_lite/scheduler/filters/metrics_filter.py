"""MetricsFilter: hosts reporting every metric the metrics weigher uses."""

import functools

from nova_lite.conf import CONF
from nova_lite.scheduler import filters
from nova_lite.scheduler import utils


def weighed_metric_names():
    """The metric names of ``[metrics] weight_setting``."""
    return {name for name, _ratio in utils.parse_options(
        CONF.metrics.weight_setting, converter=float,
        name='[metrics] weight_setting')}


def has_metric(name, host_state):
    return name in (getattr(host_state, 'metrics', None) or {})


class MetricsFilter(filters.BaseHostFilter):
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

    @staticmethod
    def _missing(host_state, names):
        have = getattr(host_state, 'metrics', None) or {}
        return sorted(names.difference(have))

    def host_passes(self, host_state, spec_obj):
        return not self._missing(host_state, weighed_metric_names())

    def filter_all(self, host_states, spec_obj):
        # The option is parsed once, not per host.
        names = weighed_metric_names()
        return [h for h in host_states if not self._missing(h, names)]

    def filter_population(self, population, spec_obj):
        passed = True
        for name in weighed_metric_names():
            passed = passed & population.derived(
                ('has metric', name), functools.partial(has_metric, name),
                bool)
        return passed

    def rejection_reason(self, host_state, spec_obj):
        missing = self._missing(host_state, weighed_metric_names())
        return 'lack metric %s' % missing[0] if missing else None
