"""An in-process oslo.messaging driver: ``transport_url = local://``.

The all-in-one run (``nova-lite-all``) puts the four services in one
process. oslo.messaging's ``fake://`` driver would do, but it polls its
queues every 50 ms, which adds about 50 ms to every RPC call. This driver
hands messages to the listening thread through a condition variable
instead, so a call costs what the work costs.

It keeps what matters about the bus: every message and context goes
through a JSON round trip (so nothing is shared by reference and anything
that would not survive RabbitMQ fails here too), and exceptions travel
serialized and are rebuilt with the same ``allowed_remote_exmods`` rules.
Clients, servers, the dispatcher and version checks are oslo.messaging's
own; only the wire is replaced. It only reaches listeners in the same
process: it is not a deployment transport.
"""

import collections
import queue
import threading

import oslo_messaging
from oslo_messaging._drivers import base
from oslo_messaging._drivers import common as rpc_common
from oslo_serialization import jsonutils


def _round_trip(value):
    return jsonutils.loads(jsonutils.dumps(value))


class _Exchange:
    """The queues of one exchange, and a condition to wait on them."""

    def __init__(self):
        self.cond = threading.Condition()
        self.queues = collections.defaultdict(collections.deque)
        # (topic, server) of every listening server, for fanout.
        self.servers = collections.Counter()

    def deliver(self, target, item):
        with self.cond:
            if target.fanout:
                keys = [('fanout', target.topic, server)
                        for topic, server in self.servers
                        if topic == target.topic]
            elif target.server:
                keys = [('server', target.topic, target.server)]
            else:
                keys = [('topic', target.topic)]
            for key in keys:
                self.queues[key].append(item)
            self.cond.notify_all()


class _Exchanges:
    _lock = threading.Lock()
    _exchanges = {}

    @classmethod
    def get(cls, name):
        with cls._lock:
            return cls._exchanges.setdefault(name, _Exchange())

    @classmethod
    def reset(cls):
        with cls._lock:
            cls._exchanges.clear()


class _IncomingMessage(base.RpcIncomingMessage):
    def __init__(self, ctxt, message, reply_q):
        super().__init__(ctxt, message)
        self._reply_q = reply_q

    def reply(self, reply=None, failure=None):
        if self._reply_q is None:
            return
        if failure is not None:
            self._reply_q.put((None,
                               rpc_common.serialize_remote_exception(failure)))
        else:
            self._reply_q.put((_round_trip(reply), None))

    def acknowledge(self):
        pass

    def requeue(self):
        pass

    def heartbeat(self):
        pass


class _Listener(base.PollStyleListener):
    def __init__(self, exchange, target):
        super().__init__()
        self._exchange = exchange
        self._server_key = (target.topic, target.server)
        self._keys = [('topic', target.topic)]
        if target.server:
            self._keys += [('server', target.topic, target.server),
                           ('fanout', target.topic, target.server)]
            with exchange.cond:
                exchange.servers[self._server_key] += 1
        self._stopped = False

    def _take(self):
        for key in self._keys:
            pending = self._exchange.queues.get(key)
            if pending:
                return pending.popleft()
        return None

    @base.batch_poll_helper
    def poll(self, timeout=None):
        with self._exchange.cond:
            item = self._take()
            while item is None and not self._stopped:
                if not self._exchange.cond.wait(timeout):
                    return None
                item = self._take()
        if item is None:
            return None
        ctxt, message, reply_q = item
        return _IncomingMessage(ctxt, message, reply_q)

    def stop(self):
        with self._exchange.cond:
            self._stopped = True
            self._exchange.cond.notify_all()

    def cleanup(self):
        if self._keys[1:]:
            with self._exchange.cond:
                self._exchange.servers[self._server_key] -= 1
                if self._exchange.servers[self._server_key] <= 0:
                    del self._exchange.servers[self._server_key]


class LocalDriver(base.BaseDriver):
    """oslo.messaging driver for ``local://``: same-process delivery."""

    def __init__(self, conf, url, default_exchange=None,
                 allowed_remote_exmods=None):
        super().__init__(conf, url, default_exchange, allowed_remote_exmods)

    def require_features(self, requeue=True):
        pass

    def _exchange(self, target):
        return _Exchanges.get(target.exchange or self._default_exchange)

    def send(self, target, ctxt, message, wait_for_reply=None, timeout=None,
             call_monitor_timeout=None, retry=None, transport_options=None):
        reply_q = queue.Queue() if wait_for_reply else None
        item = (_round_trip(ctxt), _round_trip(message), reply_q)
        self._exchange(target).deliver(target, item)
        if reply_q is None:
            return None
        try:
            reply, failure = reply_q.get(timeout=timeout)
        except queue.Empty:
            raise oslo_messaging.MessagingTimeout(
                'No reply on topic %s' % target.topic)
        if failure is not None:
            raise rpc_common.deserialize_remote_exception(
                failure, self._allowed_remote_exmods)
        return reply

    def send_notification(self, target, ctxt, message, version, retry=None):
        # Notifications are not used in-process; drop them like the noop
        # notification driver would.
        return None

    def listen(self, target, batch_size, batch_timeout):
        listener = _Listener(self._exchange(target), target)
        return base.PollStyleListenerAdapter(listener, batch_size,
                                             batch_timeout)

    def listen_for_notifications(self, targets_and_priorities, pool,
                                 batch_size, batch_timeout):
        raise NotImplementedError('local:// carries RPC only')

    def cleanup(self):
        pass


def reset():
    """Forget every queue (tests that start several all-in-ones)."""
    _Exchanges.reset()

