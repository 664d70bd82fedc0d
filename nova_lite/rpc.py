"""The message bus: one oslo.messaging transport per process.

``init(conf)`` once at service start; then ``get_client`` and
``get_server`` build RPC clients and servers that carry the request context
and versioned objects (``RequestContextSerializer``). Exceptions from
``nova_lite.exception`` raised by a server are re-raised as themselves in
the caller.
"""

import collections
import threading
import time

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_messaging.rpc import dispatcher

from nova_lite import context as nl_context
from nova_lite.objects import base as objects_base

LOG = logging.getLogger(__name__)

ALLOWED_EXMODS = ['nova_lite.exception']
TRANSPORT = None

# Messages this process sent, by origin and kind: "user" for messages sent
# on behalf of an API request (the context has a user), "service" for a
# service's own work (start-up, heartbeats, periodic tasks). Logged when a
# service stops; tools/bench_boot.py sums the "user" part per boot.
_STATS = collections.defaultdict(collections.Counter)
_STATS_LOCK = threading.Lock()


def init(conf):
    """Create this process's transport from ``[DEFAULT] transport_url``."""
    global TRANSPORT
    if TRANSPORT is None:
        TRANSPORT = messaging.get_rpc_transport(
            conf, allowed_remote_exmods=ALLOWED_EXMODS)
    return TRANSPORT


def cleanup():
    global TRANSPORT
    if TRANSPORT is not None:
        TRANSPORT.cleanup()
        TRANSPORT = None


def initialized():
    return TRANSPORT is not None


class RequestContextSerializer(messaging.Serializer):
    """Serializes the context as a dict and entities with ``base``."""

    def __init__(self, base=None):
        self._base = base

    def serialize_entity(self, context, entity):
        if self._base is None:
            return entity
        return self._base.serialize_entity(context, entity)

    def deserialize_entity(self, context, entity):
        if self._base is None:
            return entity
        return self._base.deserialize_entity(context, entity)

    def serialize_context(self, context):
        return context.to_dict()

    def deserialize_context(self, context):
        return nl_context.RequestContext.from_dict(context)


def _serializer():
    return RequestContextSerializer(objects_base.NovaLiteObjectSerializer())


def _count(ctxt, kind):
    origin = 'user' if getattr(ctxt, 'user_id', None) else 'service'
    with _STATS_LOCK:
        _STATS[origin][kind] += 1


def stats():
    """{origin: {'call': n, 'cast': n, 'fanout': n}} sent so far."""
    with _STATS_LOCK:
        return {origin: dict(counts) for origin, counts in _STATS.items()}


class _CountingCallContext:
    """Wraps a prepared call context to count what it sends."""

    def __init__(self, cctxt, fanout=False):
        self._cctxt = cctxt
        self._fanout = fanout

    def call(self, ctxt, method, **kwargs):
        _count(ctxt, 'call')
        return self._cctxt.call(ctxt, method, **kwargs)

    def cast(self, ctxt, method, **kwargs):
        _count(ctxt, 'fanout' if self._fanout else 'cast')
        return self._cctxt.cast(ctxt, method, **kwargs)

    def can_send_version(self, version=None):
        return self._cctxt.can_send_version(version)


class _CountingClient(_CountingCallContext):
    def prepare(self, **kwargs):
        return _CountingCallContext(self._cctxt.prepare(**kwargs),
                                    fanout=kwargs.get('fanout', False))


def get_client(target, version_cap=None):
    if TRANSPORT is None:
        raise RuntimeError('nova_lite.rpc.init() was not called')
    return _CountingClient(messaging.get_rpc_client(
        TRANSPORT, target, version_cap=version_cap,
        serializer=_serializer()))


def stop_server(server):
    """Stop ``server`` consuming, let in-flight requests finish, and wait.

    oslo.messaging's RabbitMQ driver acknowledges a request as it arrives
    and, on stop(), only stops polling: it never cancels its consumers, and
    its heartbeat thread keeps reading the connection, so requests the
    broker delivers after stop() are acknowledged into a listener nobody
    polls -- lost (a cast to a conductor being replaced never runs).
    Cancelling the consumers first makes the broker route new requests to
    the other servers of the topic; those already on the wire are still
    polled and handled during a short grace period.
    """
    if _cancel_consumers(server):
        time.sleep(_CANCEL_GRACE)
    server.stop()
    server.wait()


# Time for requests the broker sent before it saw the cancel to arrive.
_CANCEL_GRACE = 0.5


def _cancel_consumers(server):
    """Cancel the server's consumers (RabbitMQ); True if it had any."""
    listener = getattr(getattr(server, 'listener', None),
                       '_poll_style_listener', None)
    conn = getattr(listener, 'conn', None)
    consumers = getattr(conn, '_consumers', None)
    if not consumers:
        return False  # another driver (local://), or nothing to cancel
    # The lock keeps the polling thread off the connection while the
    # cancels are written; nowait, because that thread reads the replies.
    with conn._connection_lock:
        for consumer, tag in list(consumers.items()):
            try:
                consumer.queue.channel.basic_cancel(str(tag), nowait=True)
            except Exception as exc:
                LOG.warning('Cancelling RPC consumer %s failed: %s', tag,
                            exc)
    return True


def get_server(target, endpoints):
    if TRANSPORT is None:
        raise RuntimeError('nova_lite.rpc.init() was not called')
    return messaging.get_rpc_server(
        TRANSPORT, target, endpoints,
        serializer=_serializer(),
        access_policy=dispatcher.DefaultRPCAccessPolicy)


def version_cap(service, release_aliases):
    """The RPC version cap for calls to ``service`` ([upgrade_levels]).

    The option takes a version ("1.0") or a release name from
    ``release_aliases``; unset means no cap (the newest this code knows).
    """
    from nova_lite.conf import CONF
    from nova_lite import exception
    value = getattr(CONF.upgrade_levels, service)
    if not value:
        return None
    value = release_aliases.get(value, value)
    parts = value.split('.')
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise exception.ConfigInvalid(
            reason='[upgrade_levels] %s = %s is neither a version like '
                   '"1.0" nor a known release (%s)' % (
                       service, value, ', '.join(sorted(release_aliases))))
    return value
