"""Options every daemon shares: identity, liveness and shutdown."""

import socket

from oslo_config import cfg

service_opts = [
    cfg.StrOpt('host',
               default=socket.gethostname(),
               sample_default='<current_hostname>',
               help='Name of this node. A compute service is addressed on '
                    'the bus by this name, and every service registers its '
                    'row in the services table under it, so it must be '
                    'unique per compute and stable across restarts.'),
    cfg.IntOpt('report_interval',
               default=10, min=1,
               help='Seconds between service heartbeats. Must be well below '
                    'service_down_time.'),
    cfg.IntOpt('service_down_time',
               default=60, min=1,
               help='A service whose last heartbeat is older than this many '
                    'seconds is reported as down and its computes are not '
                    'scheduled to. Keep it several times report_interval.'),
    cfg.IntOpt('rpc_server_threads',
               default=64, min=1,
               help='Upper bound on RPC requests a daemon handles at once '
                    '(the threading executor\'s pool size).'),
]


def register_opts(conf):
    conf.register_opts(service_opts)


def list_opts():
    return {'DEFAULT': service_opts}
