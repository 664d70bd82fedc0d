"""RPC version pins for rolling upgrades (seed 003), and the version guard."""

from oslo_config import cfg

upgrade_group = cfg.OptGroup(
    'upgrade_levels', title='RPC upgrade levels',
    help='Cap what a client sends to each service while a deployment runs '
         'two releases side by side. Upgrade in the order conductor, '
         'scheduler, compute, api, with these pinned to the old release, '
         'then lift the pins.')

upgrade_opts = [
    cfg.StrOpt(name,
               help='What this service sends to the %s: unset sends the '
                    'newest this code knows; a release name (see '
                    'nova_lite/releases.json, e.g. "acorn") or an RPC '
                    'version ("1.0") caps the RPC version and sends objects '
                    'at that release\'s versions; "auto" follows the oldest '
                    '%s that is up, re-read every report_interval seconds '
                    '(no SIGHUP needed when it changes).' % (name, name))
    for name in ('conductor', 'scheduler', 'compute')
]

guard_opts = [
    cfg.BoolOpt('skip_service_version_check',
                default=False,
                help='Start even if a running service is older than the '
                     'oldest release this code can run beside. Only for a '
                     'fast-forward upgrade, where every service is stopped '
                     'and upgraded across several releases at once: '
                     'otherwise the old service will fail to talk to this '
                     'one.'),
]


def register_opts(conf):
    conf.register_group(upgrade_group)
    conf.register_opts(upgrade_opts + guard_opts, group=upgrade_group)


def list_opts():
    return {upgrade_group: upgrade_opts + guard_opts}
