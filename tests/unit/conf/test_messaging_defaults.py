"""nova_lite's default for oslo.messaging's executor pool reaches the
option oslo.messaging registers (a rename there must fail here, not leave
the daemons on 64 green-thread-sized pools unnoticed)."""

from oslo_messaging import server as messaging_server

from nova_lite.conf import CONF
from nova_lite.conf import messaging


def test_executor_pool_default_is_nova_lites():
    opts = {opt.name: opt for opt in messaging_server._pool_opts}
    assert opts['executor_thread_pool_size'].default == \
        messaging.EXECUTOR_THREAD_POOL_SIZE


def test_a_daemon_reads_the_default(conf):
    CONF.register_opts(messaging_server._pool_opts)
    assert CONF.executor_thread_pool_size == \
        messaging.EXECUTOR_THREAD_POOL_SIZE
    conf.config(executor_thread_pool_size=32)
    assert CONF.executor_thread_pool_size == 32
