"""MetricsWeigher: weigh hosts by the metrics their computes report."""

import functools

import numpy as np

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.scheduler.filters import metrics_filter
from nova_lite.scheduler import utils
from nova_lite.scheduler.weighers import rules


def weight_setting():
    """[(metric name, ratio)] of ``[metrics] weight_setting``."""
    return utils.parse_options(CONF.metrics.weight_setting, converter=float,
                               name='[metrics] weight_setting')


def metric_value(name, host_state):
    return (getattr(host_state, 'metrics', None) or {}).get(name, 0.0)


class MetricsWeigher(rules.AggregateMultiplier):
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

    def weight_objects(self, weighed_obj_list, weight_properties):
        # The option is parsed once per request, not per host.
        setting = weight_setting()
        return [self._weigh(w.obj, setting) for w in weighed_obj_list]

    def _weigh_object(self, host_state, weight_properties):
        return self._weigh(host_state, weight_setting())

    def _weigh(self, host_state, setting):
        metrics = getattr(host_state, 'metrics', None) or {}
        value = 0.0
        for name, ratio in setting:
            if name in metrics:
                value += metrics[name] * ratio
                continue
            if CONF.metrics.required:
                raise exception.ComputeHostMetricNotFound(
                    host=host_state.host, node=host_state.nodename,
                    name=name)
            if ratio * self.weight_multiplier(host_state) != 0:
                return CONF.metrics.weight_of_unavailable
        return value

    def weigh_population(self, population, spec_obj, among=None):
        setting = weight_setting()
        if not setting:
            return 0.0
        if among is None:
            among = population.mask()
        presence = [population.derived(
            ('has metric', name),
            functools.partial(metrics_filter.has_metric, name), bool)
            for name, _ratio in setting]
        if CONF.metrics.required:
            lacking = among & ~np.logical_and.reduce(presence)
            if lacking.any():
                self._raise_for_first(population, lacking, setting)
        multiplier = self.multiplier_population(population)
        value = np.zeros(population.size)
        unavailable = np.zeros(population.size, bool)
        for (name, ratio), present in zip(setting, presence, strict=True):
            unavailable |= ~present & (ratio * multiplier != 0)
            metric = population.derived(
                ('metric', name), functools.partial(metric_value, name))
            value = value + np.where(present, metric * ratio, 0.0)
        return np.where(unavailable, CONF.metrics.weight_of_unavailable,
                        value)

    @staticmethod
    def _raise_for_first(population, lacking, setting):
        host = population.hosts[int(np.flatnonzero(lacking)[0])]
        have = getattr(host, 'metrics', None) or {}
        name = next(name for name, _ratio in setting if name not in have)
        raise exception.ComputeHostMetricNotFound(
            host=host.host, node=host.nodename, name=name)
