"""WSGI plumbing shared by the middleware and the handlers.

``Middleware`` is the base of every paste filter; ``Request`` is the
request class every handler receives; ``json_response`` builds the answer.
"""

from oslo_serialization import jsonutils
import webob
import webob.dec

CONTEXT_KEY = 'nova_lite.context'
LIMITS_KEY = 'nova_lite.limits'
# Set by the router when the URL carried /{project_id}: links echo it.
URL_PROJECT_KEY = 'nova_lite.url_project_id'

JSON_TYPE = 'application/json'


class Request(webob.Request):
    """A request with nova_lite's context and negotiated microversion."""

    @property
    def context(self):
        """The authenticated RequestContext (None before auth)."""
        return self.environ.get(CONTEXT_KEY)

    @property
    def api_version_request(self):
        return self.environ.get('nova_lite.api_version_request')

    @api_version_request.setter
    def api_version_request(self, value):
        self.environ['nova_lite.api_version_request'] = value


class Middleware:
    """A paste filter: wraps ``application``.

    Subclasses implement ``__call__`` (usually with ``webob.dec.wsgify``)
    and are declared in api-paste.ini as ``<module>:<Class>.factory``;
    options of the filter's section reach ``__init__`` as keywords.
    """

    def __init__(self, application, **local_config):
        self.application = application

    @classmethod
    def factory(cls, global_config, **local_config):
        def _factory(app):
            return cls(app, **local_config)
        return _factory


def json_response(body=None, status=200, headers=None):
    """A JSON response; ``body`` None means an empty body (204, 202)."""
    response = webob.Response(status=status)
    if body is not None:
        response.content_type = JSON_TYPE
        response.charset = None
        response.body = jsonutils.dump_as_bytes(body)
    else:
        response.content_type = None
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response
