"""MetricsWeigher: weigh hosts by the metrics their computes report."""

import numpy as np

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.scheduler import host_inputs
from nova_lite.scheduler import utils
from nova_lite.scheduler.weighers import rules


def weight_setting():
    """[(metric name, ratio)] of ``[metrics] weight_setting``."""
    return utils.parse_options(CONF.metrics.weight_setting, converter=float,
                               name='[metrics] weight_setting')


class MetricsWeigher(rules.InputsWeigher):
    """Weighs a host by the sum of metric * ratio over ``[metrics]
    weight_setting`` ("cpu.percent=-1.0, mem.free=0.5"), read from
    ``host_state.metrics``; with the positive default
    ``[metrics] weight_multiplier`` the largest sum comes first.

    A host lacking a metric whose ratio (and multiplier) is not zero
    weighs ``[metrics] weight_of_unavailable`` (by default so low it
    comes last) when ``[metrics] required`` is false, and raises
    ComputeHostMetricNotFound when it is true (the default): enable
    MetricsFilter to remove such hosts before weighing. No
    weight_setting weighs every host 0.
    """

    multiplier_key = 'metrics_weight_multiplier'

    def default_multiplier(self):
        return CONF.metrics.weight_multiplier

    def parse_request(self, spec_obj):
        """The weight setting (the options are read once per request),
        or None when it is empty."""
        return weight_setting() or None

    def reads(self, setting):
        """The host's multiplier, then whether it has each metric, then
        each metric's value."""
        return ((rules.MultiplierOf(self),)
                + tuple(host_inputs.HasMetric(name) for name, _r in setting)
                + tuple(host_inputs.MetricValue(name)
                        for name, _r in setting))

    def refuses(self, setting, multiplier, *values):
        if not CONF.metrics.required:
            return False
        return np.logical_not(np.logical_and.reduce(values[:len(setting)]))

    def refusal(self, setting, host_state):
        name = next(name for name, _ratio in setting
                    if not host_inputs.has_metric(name, host_state))
        return exception.ComputeHostMetricNotFound(
            host=host_state.host, node=host_state.nodename, name=name)

    def weight(self, setting, multiplier, *values):
        presence, metrics = values[:len(setting)], values[len(setting):]
        value, unavailable = 0.0, False
        for (_name, ratio), present, metric in zip(setting, presence,
                                                    metrics, strict=True):
            unavailable = np.logical_or(unavailable, np.logical_and(
                np.logical_not(present), ratio * multiplier != 0))
            value = value + np.where(present, metric * ratio, 0.0)
        return np.where(unavailable, CONF.metrics.weight_of_unavailable,
                        value)
