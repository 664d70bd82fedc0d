"""oslo.messaging defaults.

``[DEFAULT] executor_thread_pool_size`` belongs to oslo.messaging, whose
default (64) was chosen for eventlet's green threads. nova_lite's daemons
run the threading executor: native threads that take turns on one
interpreter lock. Beyond a few threads per worker, more of them only add
lock hand-offs and let casts pile up work that competes with the calls
users wait for; with 8 the boot benchmark (``tools/bench_boot.py``)
sustains 15 to 20% more boots per second than with 64 on a 2-core
machine. Raise it for a daemon whose RPC handlers mostly wait on I/O.
"""

from oslo_config import cfg
from oslo_messaging import server as messaging_server

EXECUTOR_THREAD_POOL_SIZE = 8


def set_defaults():
    # The options oslo.messaging registers when a server is created; set
    # in place (as oslo.db's set_defaults does for its own), so that both
    # the daemons and the sample configuration see nova_lite's default.
    cfg.set_defaults(getattr(messaging_server, '_pool_opts', []),
                     executor_thread_pool_size=EXECUTOR_THREAD_POOL_SIZE)


def executor_thread_pool_size(conf):
    """The configured size, also before an RPC server registered the
    option (registering the same option again is harmless)."""
    conf.register_opts(getattr(messaging_server, '_pool_opts', []))
    return conf.executor_thread_pool_size


def register_opts(conf):
    set_defaults()


def list_opts():
    # Listed through the oslo.messaging namespace by the sample generator.
    return {}
