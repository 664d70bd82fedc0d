"""The oslo.messaging internals nova_lite relies on are still there.

``nova_lite/rpc.py`` reaches into the RabbitMQ driver to cancel a
server's consumers before it stops (so a stopping daemon loses no
request), and ``nova_lite/local_transport.py`` builds a driver on
oslo.messaging's private driver base classes. Neither is a public API: a
new oslo.messaging could move them, and the graceful stop would quietly
go back to losing requests. These tests fail first.

The RabbitMQ driver runs here on kombu's in-memory transport
(``kombu+memory://``): the same driver classes, no broker.
"""

import inspect
import time

import amqp.channel
import oslo_messaging as messaging
from oslo_messaging._drivers import base
from oslo_messaging._drivers import common as rpc_common
from oslo_messaging._drivers import impl_rabbit
import pytest

from nova_lite import local_transport
from nova_lite import rpc


class _Endpoint:
    target = messaging.Target(version='1.0')

    def echo(self, context, value):
        return value


@pytest.fixture
def rabbit_server(conf):
    conf.config(transport_url='kombu+memory:////')
    rpc.cleanup()
    rpc.init(conf.conf)
    server = rpc.get_server(messaging.Target(topic='internals', server='h'),
                            [_Endpoint()])
    server.start()
    yield server
    server.stop()
    server.wait()
    rpc.cleanup()


def _wait_for_consumers(server, seconds=5.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        conn, consumers = rpc.rabbit_consumers(server)
        if consumers:
            return conn, consumers
        time.sleep(0.05)
    return rpc.rabbit_consumers(server)


def test_rabbit_driver_is_the_one_under_test(rabbit_server):
    assert isinstance(rpc.TRANSPORT._driver, impl_rabbit.RabbitDriver)


def test_stop_server_finds_the_rabbit_consumers(rabbit_server):
    """server.listener._poll_style_listener.conn._consumers, and the
    connection's _connection_lock, are where rpc.stop_server looks."""
    conn, consumers = _wait_for_consumers(rabbit_server)
    assert conn is not None, 'the RabbitMQ connection was not found'
    assert consumers, 'the RabbitMQ consumers were not found'
    with conn._connection_lock:
        pass
    for consumer, tag in consumers.items():
        assert tag is not None
        assert callable(consumer.queue.channel.basic_cancel)


def test_real_amqp_channels_cancel_without_waiting():
    """rpc._cancel_consumers sends basic_cancel(tag, nowait=True) on
    py-amqp's channel (the in-memory channel takes no ``nowait``)."""
    params = inspect.signature(amqp.channel.Channel.basic_cancel).parameters
    assert 'nowait' in params


def test_local_driver_base_classes_are_there():
    for name in ('BaseDriver', 'RpcIncomingMessage', 'PollStyleListener',
                 'PollStyleListenerAdapter', 'batch_poll_helper'):
        assert hasattr(base, name), 'oslo_messaging._drivers.base.%s' % name
    for name in ('serialize_remote_exception',
                 'deserialize_remote_exception'):
        assert hasattr(rpc_common, name), name
    assert issubclass(local_transport.LocalDriver, base.BaseDriver)


def test_local_driver_overrides_every_abstract_method():
    """A method oslo.messaging adds to its driver contract would leave the
    local driver abstract (or silently inherited)."""
    abstract = set(getattr(base.BaseDriver, '__abstractmethods__', ()))
    assert abstract, 'BaseDriver declares no abstract methods any more'
    missing = [name for name in abstract
               if name not in vars(local_transport.LocalDriver)]
    assert missing == []
    for cls, parent in ((local_transport._Listener, base.PollStyleListener),
                        (local_transport._IncomingMessage,
                         base.RpcIncomingMessage)):
        missing = [name for name in getattr(parent, '__abstractmethods__',
                                            ())
                   if name not in vars(cls)]
        assert missing == [], (cls.__name__, missing)


def test_local_driver_send_takes_what_oslo_messaging_passes():
    expected = inspect.signature(base.BaseDriver.send).parameters
    ours = inspect.signature(local_transport.LocalDriver.send).parameters
    assert list(expected) == list(ours)


def test_replies_of_the_rabbit_driver_are_retried(rabbit_server):
    """rpc.retry_refused_replies wraps the reply of the message class the
    AMQP listener makes: if that moves, a reply refused during a broker
    outage is dropped again and its caller waits out its timeout."""
    from oslo_messaging._drivers import amqpdriver
    assert amqpdriver.RpcAMQPListener.message_cls is \
        amqpdriver.AMQPIncomingMessage
    assert amqpdriver.AMQPIncomingMessage.reply.retries_refused_replies
    params = inspect.signature(
        amqpdriver.AMQPIncomingMessage.reply).parameters
    assert list(params) == ['self', 'reply', 'failure']
