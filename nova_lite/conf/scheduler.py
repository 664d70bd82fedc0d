"""Options of the scheduler: ``[scheduler]`` and ``[filter_scheduler]``."""

from oslo_config import cfg

scheduler_group = cfg.OptGroup('scheduler', title='Scheduler options')
filter_group = cfg.OptGroup('filter_scheduler',
                            title='Filter scheduler options')

scheduler_opts = [
    cfg.IntOpt('max_attempts',
               default=3, min=1,
               help='Hosts tried per instance: the chosen host plus '
                    'max_attempts - 1 alternates the conductor falls back '
                    'to when a build fails.'),
    cfg.IntOpt('host_state_resync_interval',
               default=60, min=1,
               help='Seconds between full reloads of the scheduler\'s '
                    'in-memory host state from the database. Between '
                    'reloads it is kept current by its own claims and by '
                    'change notices from the conductor.'),
]

filter_opts = [
    cfg.MultiStrOpt('available_filters',
                    default=['nova_lite.scheduler.filters.all_filters'],
                    help='Filters the scheduler may use: '
                         '"nova_lite.scheduler.filters.all_filters" for '
                         'every built-in, or the class path of a custom '
                         'filter. Repeat the option for several.'),
    cfg.ListOpt('enabled_filters',
                default=['ComputeFilter'],
                help='Filters applied to every request, in this order. '
                     'Each must be among available_filters. Put cheap '
                     'filters that remove many hosts first.'),
    cfg.ListOpt('weight_classes',
                default=['nova_lite.scheduler.weighers.all_weighers'],
                help='Weighers applied to every request: '
                     '"nova_lite.scheduler.weighers.all_weighers", '
                     'entry point names, or class paths.'),
    cfg.FloatOpt('ram_weight_multiplier', default=1.0,
                 help='Multiplier of the RAM weigher. Positive spreads '
                      'instances over hosts with the most free RAM; '
                      'negative stacks them.'),
    cfg.FloatOpt('cpu_weight_multiplier', default=1.0,
                 help='Multiplier of the CPU weigher. Positive spreads by '
                      'free VCPUs; negative stacks.'),
    cfg.FloatOpt('disk_weight_multiplier', default=1.0,
                 help='Multiplier of the disk weigher. Positive spreads by '
                      'free disk; negative stacks.'),
    cfg.IntOpt('host_subset_size', default=1, min=1,
               help='Pick the host at random among this many best-weighed '
                    'hosts, to lower collisions between schedulers.'),
    cfg.BoolOpt('shuffle_best_same_weighed_hosts', default=False,
                help='Shuffle the hosts that share the best weight, so '
                     'equal hosts share the load.'),
]


def register_opts(conf):
    conf.register_group(scheduler_group)
    conf.register_opts(scheduler_opts, group=scheduler_group)
    conf.register_group(filter_group)
    conf.register_opts(filter_opts, group=filter_group)


def list_opts():
    return {scheduler_group: scheduler_opts, filter_group: filter_opts}
