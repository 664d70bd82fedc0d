"""The outermost safety net: any exception becomes a JSON fault.

A nova_lite exception keeps its code and message; a ``webob.exc`` HTTP
error keeps its status and explanation; an RPC call no conductor answered
(or the broker refused) and a lost database connection (the API's own,
or the conductor's: a ``RemoteError`` of ``DBConnectionError``) are
answered 503 ``serviceUnavailable`` with ``Retry-After``: the request may
be sent again
once the backend is back; anything else is logged with its traceback and
answered 500 ``computeFault`` naming the request id, so an operator can
find the traceback from what the user reports.

Before anything reads the URL, its path and query string must be UTF-8
once percent-decoded (``%ff`` is not): webob would raise deep inside a
handler, so such a request is answered 400 here. So is one with a NUL
character (``%00``) in them: no name or id holds one, and PostgreSQL
refuses to compare a string that does (a 500 the fuzzing run found).
"""

from urllib import parse

from oslo_db import exception as db_exc
from oslo_log import log as logging
import oslo_messaging as messaging
import webob.dec
import webob.exc

from nova_lite.api import faults
from nova_lite.api.middleware import request_id
from nova_lite.api import wsgi
from nova_lite import exception
from nova_lite import rpc

LOG = logging.getLogger(__name__)


class FaultWrapper(wsgi.Middleware):
    """Returns the application's response, or a JSON fault if it raised."""

    @webob.dec.wsgify(RequestClass=wsgi.Request)
    def __call__(self, req):
        problem = _bad_url(req.environ)
        if problem:
            return faults.fault_response(400, problem)
        try:
            return req.get_response(self.application)
        except exception.NovaLiteException as exc:
            if exc.code >= 500:
                LOG.exception('FaultWrapper: %s', exc)
            return faults.exception_response(exc)
        except (messaging.MessagingTimeout,) + rpc.REFUSED as exc:
            LOG.error('No answer over the message bus for %s %s: %s',
                      req.method, req.path, exc)
            return faults.exception_response(exception.ServiceUnavailable(
                what='The conductor service'))
        except (db_exc.DBConnectionError, messaging.RemoteError) as exc:
            if not _database_lost(exc):
                return self._unexpected(req, exc)
            LOG.error('Database unreachable for %s %s: %s', req.method,
                      req.path, exc)
            return faults.exception_response(exception.ServiceUnavailable(
                what='The database'))
        except webob.exc.HTTPException as exc:
            return faults.fault_response(exc.code, exc.explanation or
                                         exc.title, headers=_extra(exc))
        except Exception as exc:
            return self._unexpected(req, exc)

    @staticmethod
    def _unexpected(req, exc):
        LOG.exception('FaultWrapper: unexpected %s', type(exc).__name__)
        req_id = req.environ.get(request_id.ENV_REQUEST_ID, 'unknown')
        return faults.fault_response(
            500, 'Unexpected API Error. Please report it with request '
                 'id %s; the nova-lite-api log has the details.' % req_id)


def _database_lost(exc):
    """A lost database connection, here or in the conductor (its
    oslo.db errors cross RPC as a RemoteError naming their class)."""
    if isinstance(exc, messaging.RemoteError):
        return exc.exc_type == db_exc.DBConnectionError.__name__
    return True


def _extra(exc):
    # Keep headers that carry meaning (Retry-After, Allow, Location), not
    # the HTML-body ones webob set.
    keep = ('Retry-After', 'Allow', 'Location', 'WWW-Authenticate')
    return {k: v for k, v in exc.headers.items() if k in keep}


def _bad_url(environ):
    """Why the URL's path or query string cannot be served (not UTF-8
    once percent-decoded, or holding a NUL character), else None. WSGI
    hands both over as latin-1 strings, the path already percent-decoded
    and the query string not."""
    path = environ.get('SCRIPT_NAME', '') + environ.get('PATH_INFO', '')
    query = environ.get('QUERY_STRING', '')
    parts = (('path', path.encode('latin-1')),
             ('query string',
              parse.unquote_to_bytes(query.encode('latin-1'))))
    for name, raw in parts:
        try:
            raw.decode('utf-8')
        except UnicodeError:
            return ('The request %s is not valid UTF-8 once '
                    'percent-decoded.' % name)
        if b'\x00' in raw:
            return ('The request %s holds a NUL character (%%00), which '
                    'no name, id or filter may contain.' % name)
    return None
