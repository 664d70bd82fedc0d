"""Nova-shaped JSON faults: ``{"<name>": {"code": N, "message": "..."}}``.

The name is picked from the HTTP status as Nova does, so clients that parse
Nova's errors (novaclient, openstacksdk) read ours. Every error answer of
the API, from a middleware or a handler, goes through ``fault_response``.
"""

from nova_lite.api import wsgi

FAULT_NAMES = {
    400: 'badRequest',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'itemNotFound',
    405: 'badMethod',
    406: 'notAcceptable',
    409: 'conflictingRequest',
    413: 'requestEntityTooLarge',
    415: 'badMediaType',
    429: 'overLimit',
    431: 'requestHeaderFieldsTooLarge',
    501: 'notImplemented',
    503: 'serviceUnavailable',
}
DEFAULT_NAME = 'computeFault'


def fault_response(code, message, headers=None, **extra):
    """A JSON fault with status ``code``; ``extra`` keys join the body."""
    payload = {'code': code, 'message': message}
    payload.update(extra)
    name = FAULT_NAMES.get(code, DEFAULT_NAME)
    return wsgi.json_response({name: payload}, status=code, headers=headers)


def exception_response(exc):
    """The fault for a nova_lite exception: its code and message.

    A 5xx exception's text may reveal internals; it is shown only when the
    class is marked ``safe``.
    """
    code = getattr(exc, 'code', 500) or 500
    if code >= 500 and not getattr(exc, 'safe', False):
        message = 'Unexpected API Error (%s).' % type(exc).__name__
    else:
        message = exc.format_message()
    return fault_response(code, message, headers=dict(exc.headers or {}))
