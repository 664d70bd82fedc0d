"""Options every daemon shares: identity, liveness and shutdown."""

import socket

from oslo_config import cfg
import oslo_messaging
from oslo_messaging import transport as messaging_transport

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
    cfg.IntOpt('rpc_stats_log_interval',
               default=0, min=0,
               help='Seconds between log lines with this service\'s RPC '
                    'statistics (messages sent by kind and by '
                    'method@version, objects backported). 0 logs them only '
                    'when the service stops. tools/upgrade-drill sets it to '
                    'report per phase.'),
    cfg.IntOpt('service_down_time',
               default=60, min=1,
               help='A service whose last heartbeat is older than this many '
                    'seconds is reported as down and its computes are not '
                    'scheduled to. Keep it several times report_interval.'),
    cfg.IntOpt('gc_young_threshold',
               default=20000, min=0,
               help='Allocations between two collections of the youngest '
                    'generation of Python\'s cyclic garbage collector, set '
                    'once the service has started, when what start-up '
                    'allocated (modules, options, mappings, prepared '
                    'statements) is also frozen out of every later '
                    'collection. Python\'s default, 700, spent about a '
                    'twentieth of each daemon\'s CPU in collections during '
                    'a boot benchmark, 20000 and the freeze about half '
                    'that. 0 keeps Python\'s threshold (the start-up heap '
                    'is still frozen).'),
    cfg.IntOpt('rpc_delivery_retry_timeout', mutable=True,
               default=30, min=0,
               help='Seconds a message the broker refused to take (its '
                    'vhost or exchange refused: MessageDeliveryFailure, '
                    'so nothing was sent) is offered again, every half '
                    'second, before the failure is raised. A compute\'s '
                    'saves and hand-backs, and the conductor\'s casts and '
                    'scheduler calls, then survive a short broker outage '
                    'instead of failing a build or losing a delete. 0 '
                    'raises at once, which is nova-lite-api\'s default: '
                    'it answers 503 with Retry-After instead of holding '
                    'the request.'),
]


def register_opts(conf):
    conf.register_opts(service_opts)
    # transport_url, rpc_response_timeout and the executor pool size are
    # oslo.messaging's; register them now so every daemon and the sample
    # config see them, with nova_lite's own exchange.
    # (oslo.messaging registers the same option objects itself when the
    # transport is created; registering them early is a no-op for it.)
    oslo_messaging.set_transport_defaults(control_exchange='nova_lite')
    conf.register_opts(messaging_transport._transport_opts)


def list_opts():
    return {'DEFAULT': service_opts}
