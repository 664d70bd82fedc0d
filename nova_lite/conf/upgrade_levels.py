"""RPC version pins for rolling upgrades (seed 003)."""

from oslo_config import cfg

upgrade_group = cfg.OptGroup(
    'upgrade_levels', title='RPC upgrade levels',
    help='Cap the RPC version a client sends to each service while a '
         'deployment runs two releases side by side.')

upgrade_opts = [
    cfg.StrOpt(name,
               help='Highest RPC version this service sends to the %s: a '
                    'version such as "1.0" or a release name. Unset sends '
                    'the newest version this code knows.' % name)
    for name in ('conductor', 'scheduler', 'compute')
]


def register_opts(conf):
    conf.register_group(upgrade_group)
    conf.register_opts(upgrade_opts, group=upgrade_group)


def list_opts():
    return {upgrade_group: upgrade_opts}
