"""Options of the metrics weigher and filter: ``[metrics]``.

Example, preferring hosts with little CPU in use and much free memory::

    [metrics]
    weight_setting = cpu.percent=-1.0, mem.free=0.5
    required = false
"""

from oslo_config import cfg

metrics_group = cfg.OptGroup('metrics', title='Metrics weigher options',
                             help='How MetricsWeigher and MetricsFilter '
                                  'use the metrics computes report.')

metrics_opts = [
    cfg.FloatOpt('weight_multiplier', default=1.0,
                 help='Multiplier of the metrics weigher. Positive prefers '
                      'hosts with the largest weighted sum of metrics, '
                      'negative the smallest; 0.0 turns the weigher off. '
                      'Aggregate metadata metrics_weight_multiplier '
                      'overrides it per host (the smallest value wins).'),
    cfg.ListOpt('weight_setting', default=[],
                help='Metrics to weigh and their ratios, as '
                     '"name=ratio" items, e.g. "cpu.percent=-1.0, '
                     'mem.free=0.5": a host weighs the sum of each '
                     'metric times its ratio. Malformed items are '
                     'ignored with a warning. MetricsFilter rejects hosts '
                     'lacking any metric named here.'),
    cfg.BoolOpt('required', default=True,
                help='What a host lacking a metric of weight_setting '
                     'does to weighing: true fails the request with '
                     'ComputeHostMetricNotFound (enable MetricsFilter to '
                     'remove such hosts first); false gives the host '
                     'weight_of_unavailable instead.'),
    cfg.FloatOpt('weight_of_unavailable', default=-10000.0,
                 help='Raw weight of a host lacking a metric of '
                      'weight_setting when required is false. The default '
                      'puts such hosts last.'),
]


def register_opts(conf):
    conf.register_group(metrics_group)
    conf.register_opts(metrics_opts, group=metrics_group)


def list_opts():
    return {metrics_group: metrics_opts}
