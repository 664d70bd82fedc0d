"""The message bus: one oslo.messaging transport per process.

``init(conf)`` once at service start; then ``get_client`` and
``get_server`` build RPC clients and servers that carry the request context
and versioned objects (``RequestContextSerializer``). Exceptions from
``nova_lite.exception`` raised by a server are re-raised as themselves in
the caller.
"""

import contextlib
import functools
import time

from amqp import exceptions as amqp_exceptions
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_messaging._drivers import amqpdriver
from oslo_messaging.rpc import dispatcher
from oslo_utils import versionutils

from nova_lite.conf import CONF
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite.objects import base as objects_base
from nova_lite import rpc_stats

LOG = logging.getLogger(__name__)

ALLOWED_EXMODS = ['nova_lite.exception']
TRANSPORT = None

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


class PinnedObjectSerializer(objects_base.NovaLiteObjectSerializer):
    """Sends objects at the versions a pin allows.

    ``object_versions`` is a callable returning {object name: version} (the
    pinned release's objects) or None for "newest". Objects newer than
    that are backported before they leave, recursively.
    """

    def __init__(self, object_versions=None, omit=None):
        super().__init__()
        self._object_versions = object_versions
        self._omit = omit or {}

    def serialize_entity(self, context, entity):
        manifest = self._object_versions() if self._object_versions else None
        if manifest and isinstance(entity, objects_base.NovaLiteObject):
            return _omitted(_backported(entity, manifest), entity,
                            self._omit)
        return _omitted(super().serialize_entity(context, entity), entity,
                        self._omit)


def _omitted(primitive, entity, omit):
    """``primitive`` (of ``entity``) without the fields ``omit`` names for
    its object ({object name: field names}): the receiver never reads
    them, so they are not sent; it sees them unset, and its sparse saves
    (the changed fields only) cannot write them."""
    names = (omit.get(entity.obj_name())
             if isinstance(entity, objects_base.NovaLiteObject) else None)
    if not names:
        return primitive
    data = primitive[entity._obj_primitive_key('data')]
    for name in names:
        data.pop(name, None)
    changes = entity._obj_primitive_key('changes')
    if changes in primitive:
        primitive[changes] = [name for name in primitive[changes]
                              if name not in names]
    return primitive


def _backported(entity, manifest):
    target = manifest.get(entity.obj_name(), entity.VERSION)
    if versionutils.convert_version_to_tuple(target) < \
            versionutils.convert_version_to_tuple(entity.VERSION):
        rpc_stats.record('backported',
                         '%s@%s' % (entity.obj_name(), target))
    else:
        target = entity.VERSION
    return entity.obj_to_primitive(target_version=target,
                                   version_manifest=manifest)


DELIVERY_RETRY_INTERVAL = 0.5
# The broker refused the message, so nothing was published: the publish
# itself (MessageDeliveryFailure), or the new connection it needed (its
# vhost refused: py-amqp's errors, which oslo.messaging lets through raw
# from its connection pool; the publish path wraps its own).
REFUSED = (messaging.MessageDeliveryFailure, amqp_exceptions.NotAllowed,
           amqp_exceptions.AccessRefused)


def _deliver(send, ctxt, method, **kwargs):
    """``send(ctxt, method, **kwargs)``, offered again while the broker
    refuses to take it (``REFUSED``: nothing was published, so sending
    again cannot duplicate it), for up to [DEFAULT]
    rpc_delivery_retry_timeout seconds."""
    deadline = time.monotonic() + CONF.rpc_delivery_retry_timeout
    while True:
        try:
            return send(ctxt, method, **kwargs)
        except REFUSED as exc:
            if time.monotonic() + DELIVERY_RETRY_INTERVAL > deadline:
                raise
            LOG.warning('The bus refused %s (%s); offering it again',
                        method, exc)
        time.sleep(DELIVERY_RETRY_INTERVAL)


class _CountingCallContext:
    """Wraps a prepared call context to count what it sends."""

    def __init__(self, cctxt, fanout=False):
        self._cctxt = cctxt
        self._fanout = fanout

    def call(self, ctxt, method, **kwargs):
        rpc_stats.count_sent(ctxt, 'call', self._cctxt.target, method)
        with self._pinned(method):
            return _deliver(self._cctxt.call, ctxt, method, **kwargs)

    def cast(self, ctxt, method, **kwargs):
        rpc_stats.count_sent(ctxt, 'fanout' if self._fanout else 'cast',
                             self._cctxt.target, method)
        with self._pinned(method):
            return _deliver(self._cctxt.cast, ctxt, method, **kwargs)

    @contextlib.contextmanager
    def _pinned(self, method):
        """A message newer than the pin allows, and which the rpcapi could
        not express in an older form, fails with an error naming both."""
        try:
            yield
        except messaging.RPCVersionCapError:
            target = self._cctxt.target
            raise exception.UnsupportedRPCVersion(
                method=method, service=target.topic, needed=target.version,
                pin=self._cctxt.version_cap)

    def can_send_version(self, version=None):
        return self._cctxt.can_send_version(version)


class _Client(_CountingCallContext):
    """The client every rpcapi holds: applies the current pin before each
    message, and counts what it sends."""

    def __init__(self, client, pin=None):
        super().__init__(client)
        self._pin = pin

    def _apply_pin(self):
        if self._pin is not None:
            self._cctxt.version_cap = self._pin.resolve()[0]

    def prepare(self, **kwargs):
        self._apply_pin()
        return _CountingCallContext(self._cctxt.prepare(**kwargs),
                                    fanout=kwargs.get('fanout', False))

    def can_send_version(self, version=None):
        self._apply_pin()
        return self._cctxt.can_send_version(version)

    def call(self, ctxt, method, **kwargs):
        self._apply_pin()
        return super().call(ctxt, method, **kwargs)

    def cast(self, ctxt, method, **kwargs):
        self._apply_pin()
        return super().cast(ctxt, method, **kwargs)


def _serializer(pin=None, omit=None):
    objects = (lambda: pin.resolve()[1]) if pin is not None else None
    return RequestContextSerializer(PinnedObjectSerializer(objects, omit))


def get_client(target, version_cap=None, pin=None, omit=None):
    """An RPC client for ``target``.

    ``pin`` (an rpc_pins.Pin) caps the version and the objects sent, and
    is re-evaluated on every message; ``version_cap`` is a fixed cap.
    ``omit`` ({object name: field names}) names fields of the objects
    passed as arguments that the receiver never needs: they are not sent.
    """
    if TRANSPORT is None:
        raise RuntimeError('nova_lite.rpc.init() was not called')
    client = messaging.get_rpc_client(TRANSPORT, target,
                                      version_cap=version_cap,
                                      serializer=_serializer(pin, omit))
    return _Client(client, pin=pin)


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


def rabbit_consumers(server):
    """(connection, {consumer: tag}) of a started server on the RabbitMQ
    driver, or (None, None) on another driver.

    These are oslo.messaging internals (the server's listener, its poll
    style listener, the driver connection's consumers and lock);
    tests/unit/test_messaging_internals.py fails if a release of
    oslo.messaging moves them, which would otherwise silently turn
    ``stop_server`` back into a stop that loses requests.
    """
    listener = getattr(getattr(server, 'listener', None),
                       '_poll_style_listener', None)
    conn = getattr(listener, 'conn', None)
    consumers = getattr(conn, '_consumers', None)
    if consumers is None or not hasattr(conn, '_connection_lock'):
        return None, None
    return conn, consumers


def _cancel_consumers(server):
    """Cancel the server's consumers (RabbitMQ); True if it had any."""
    conn, consumers = rabbit_consumers(server)
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


def _retrying_reply(reply):
    """``reply`` (an incoming message's), offered again like a request
    (``_deliver``) while the broker refuses it.

    oslo.messaging sends a reply once: refused (a broker outage, the
    vhost's permissions withdrawn), it is logged and dropped, and the
    caller waits out rpc_response_timeout although its reply queue
    (neither exclusive nor auto-deleted) is still there and the broker is
    back in seconds. A compute's ACTIVE save then found out only 30 to 60
    s later that it had committed: a server looked BUILD that long.
    """
    original = reply

    @functools.wraps(original)
    def retrying(message, reply=None, failure=None):
        def send(_ctxt, _what):
            return original(message, reply=reply, failure=failure)
        return _deliver(send, None, 'a reply')
    retrying.retries_refused_replies = True
    return retrying


def retry_refused_replies():
    """Install ``_retrying_reply`` on the AMQP driver's incoming message
    (oslo.messaging internals: tests/unit/test_messaging_internals.py
    fails if they move). Idempotent."""
    message_cls = amqpdriver.AMQPIncomingMessage
    if not getattr(message_cls.reply, 'retries_refused_replies', False):
        message_cls.reply = _retrying_reply(message_cls.reply)


def get_server(target, endpoints):
    if TRANSPORT is None:
        raise RuntimeError('nova_lite.rpc.init() was not called')
    retry_refused_replies()
    return messaging.get_rpc_server(
        TRANSPORT, target, endpoints,
        serializer=_serializer(),
        access_policy=dispatcher.DefaultRPCAccessPolicy)
