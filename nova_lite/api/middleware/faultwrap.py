"""The outermost safety net: any exception becomes a JSON fault.

A nova_lite exception keeps its code and message; a ``webob.exc`` HTTP
error keeps its status and explanation; an RPC call no conductor answered
(or the broker refused) and a lost database connection are answered 503
``serviceUnavailable`` with ``Retry-After``: the request may be sent again
once the backend is back; anything else is logged with its traceback and
answered 500 ``computeFault`` naming the request id, so an operator can
find the traceback from what the user reports.

Before anything reads the URL, its path and query string must be UTF-8
once percent-decoded (``%ff`` is not): webob would raise deep inside a
handler, so such a request is answered 400 here.
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

LOG = logging.getLogger(__name__)


class FaultWrapper(wsgi.Middleware):
    """Returns the application's response, or a JSON fault if it raised."""

    @webob.dec.wsgify(RequestClass=wsgi.Request)
    def __call__(self, req):
        bad_part = _non_utf8_url_part(req.environ)
        if bad_part:
            return faults.fault_response(
                400, 'The request %s is not valid UTF-8 once '
                     'percent-decoded.' % bad_part)
        try:
            return req.get_response(self.application)
        except exception.NovaLiteException as exc:
            if exc.code >= 500:
                LOG.exception('FaultWrapper: %s', exc)
            return faults.exception_response(exc)
        except (messaging.MessagingTimeout,
                messaging.MessageDeliveryFailure) as exc:
            LOG.error('No answer over the message bus for %s %s: %s',
                      req.method, req.path, exc)
            return faults.exception_response(exception.ServiceUnavailable(
                what='The conductor service'))
        except db_exc.DBConnectionError as exc:
            LOG.error('Database unreachable for %s %s: %s', req.method,
                      req.path, exc)
            return faults.exception_response(exception.ServiceUnavailable(
                what='The database'))
        except webob.exc.HTTPException as exc:
            return faults.fault_response(exc.code, exc.explanation or
                                         exc.title, headers=_extra(exc))
        except Exception as exc:
            LOG.exception('FaultWrapper: unexpected %s', type(exc).__name__)
            req_id = req.environ.get(request_id.ENV_REQUEST_ID, 'unknown')
            return faults.fault_response(
                500, 'Unexpected API Error. Please report it with request '
                     'id %s; the nova-lite-api log has the details.'
                     % req_id)


def _extra(exc):
    # Keep headers that carry meaning (Retry-After, Allow, Location), not
    # the HTML-body ones webob set.
    keep = ('Retry-After', 'Allow', 'Location', 'WWW-Authenticate')
    return {k: v for k, v in exc.headers.items() if k in keep}


def _non_utf8_url_part(environ):
    """"path" or "query string" if that part of the URL is not UTF-8,
    else None. WSGI hands both over as latin-1 strings, the path already
    percent-decoded and the query string not."""
    path = environ.get('SCRIPT_NAME', '') + environ.get('PATH_INFO', '')
    query = environ.get('QUERY_STRING', '')
    try:
        path.encode('latin-1').decode('utf-8')
    except UnicodeError:
        return 'path'
    try:
        parse.unquote_to_bytes(query.encode('latin-1')).decode('utf-8')
    except UnicodeError:
        return 'query string'
    return None
