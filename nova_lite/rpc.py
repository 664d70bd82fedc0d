"""The message bus: one oslo.messaging transport per process.

``init(conf)`` once at service start; then ``get_client`` and
``get_server`` build RPC clients and servers that carry the request context
and versioned objects (``RequestContextSerializer``). Exceptions from
``nova_lite.exception`` raised by a server are re-raised as themselves in
the caller.
"""

import oslo_messaging as messaging
from oslo_messaging.rpc import dispatcher

from nova_lite import context as nl_context
from nova_lite.objects import base as objects_base

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


def _serializer():
    return RequestContextSerializer(objects_base.NovaLiteObjectSerializer())


def get_client(target, version_cap=None):
    if TRANSPORT is None:
        raise RuntimeError('nova_lite.rpc.init() was not called')
    return messaging.get_rpc_client(TRANSPORT, target,
                                    version_cap=version_cap,
                                    serializer=_serializer())


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
