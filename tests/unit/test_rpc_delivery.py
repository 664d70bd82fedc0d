"""A message the broker refused is offered again for a while
(nova_lite/rpc.py _deliver)."""

from unittest import mock

from amqp import exceptions as amqp_exceptions
import oslo_messaging as messaging
import pytest

from nova_lite import rpc


@pytest.fixture(autouse=True)
def fast(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(rpc.time, 'monotonic', lambda: clock[0])
    monkeypatch.setattr(rpc.time, 'sleep',
                        lambda s: clock.__setitem__(0, clock[0] + s))
    return clock


def test_sent_again_until_the_broker_takes_it(conf):
    send = mock.Mock(side_effect=[messaging.MessageDeliveryFailure('403'),
                                  messaging.MessageDeliveryFailure('403'),
                                  'answer'])
    assert rpc._deliver(send, 'ctxt', 'ping', arg=1) == 'answer'
    assert send.call_count == 3
    send.assert_called_with('ctxt', 'ping', arg=1)


def test_raised_once_the_retry_timeout_passed(conf, fast):
    conf.config(rpc_delivery_retry_timeout=3)
    send = mock.Mock(side_effect=messaging.MessageDeliveryFailure('403'))
    with pytest.raises(messaging.MessageDeliveryFailure):
        rpc._deliver(send, 'ctxt', 'ping')
    assert send.call_count == 7   # at 0, 0.5, ... 3 s
    assert fast[0] <= 3


def test_zero_raises_at_once(conf):
    conf.config(rpc_delivery_retry_timeout=0)
    send = mock.Mock(side_effect=messaging.MessageDeliveryFailure('403'))
    with pytest.raises(messaging.MessageDeliveryFailure):
        rpc._deliver(send, 'ctxt', 'ping')
    assert send.call_count == 1


def test_other_errors_are_not_retried(conf):
    send = mock.Mock(side_effect=messaging.MessagingTimeout('late'))
    with pytest.raises(messaging.MessagingTimeout):
        rpc._deliver(send, 'ctxt', 'ping')
    assert send.call_count == 1


def test_object_calls_of_a_thread_can_wait_less(conf):
    from nova_lite.conductor import rpcapi as conductor_rpcapi
    api = conductor_rpcapi.ConductorAPI.__new__(conductor_rpcapi.ConductorAPI)
    api.client = mock.Mock()
    # A service's heartbeat sends the whole object; a sparse save (an
    # Instance's) goes through the other prepare: both wait as told.
    whole = mock.Mock(**{'obj_sparse_for.return_value': None})
    sparse = mock.Mock(**{'obj_sparse_for.return_value': 'sparse'})
    for obj in (whole, sparse):
        api.object_action('ctxt', obj, 'heartbeat', (), {})
        assert api.client.prepare.call_args[1]['timeout'] is None
        with conductor_rpcapi.call_timeout(5):
            api.object_action('ctxt', obj, 'heartbeat', (), {})
            assert api.client.prepare.call_args[1]['timeout'] == 5
        api.object_action('ctxt', obj, 'heartbeat', (), {})
        assert api.client.prepare.call_args[1]['timeout'] is None


def test_a_refused_reply_is_offered_again(conf):
    """Regression (fault suite, RabbitMQ outage): a conductor's reply to
    a compute's ACTIVE save was refused once and dropped; the compute
    waited rpc_response_timeout (30 s there) before asking what was
    committed, and the server stayed BUILD that long after the bus came
    back."""
    original = mock.Mock(side_effect=[messaging.MessageDeliveryFailure('403'),
                                      messaging.MessageDeliveryFailure('403'),
                                      None])
    reply = rpc._retrying_reply(original)
    message = object()
    reply(message, reply={'result': 1})
    assert original.call_count == 3
    original.assert_called_with(message, reply={'result': 1}, failure=None)


def test_replies_retry_once_installed(monkeypatch):
    class Message:
        def reply(self, reply=None, failure=None):
            pass
    monkeypatch.setattr(rpc.amqpdriver, 'AMQPIncomingMessage', Message)
    rpc.retry_refused_replies()
    installed = Message.reply
    rpc.retry_refused_replies()
    assert Message.reply is installed
    assert installed.retries_refused_replies


def test_a_vhost_refusing_the_connection_is_a_refusal_too(conf):
    """Regression (fault suite, RabbitMQ outage): a compute's ACTIVE save
    needed a new pooled connection, which the vhost refused; the raw
    py-amqp error was not retried, so the compute destroyed a spawned VM
    and its hand-back failed too, leaving the server BUILD until
    build_timeout."""
    send = mock.Mock(side_effect=[
        amqp_exceptions.NotAllowed('Connection.open: (530) NOT_ALLOWED'),
        amqp_exceptions.AccessRefused('(403) ACCESS_REFUSED'),
        'answer'])
    assert rpc._deliver(send, 'ctxt', 'object_action') == 'answer'
    assert send.call_count == 3
