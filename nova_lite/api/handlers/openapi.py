"""GET /v2.1/openapi.json: the API's OpenAPI 3.1 description."""

import functools

from nova_lite.api import openapi
from nova_lite.api import wsgi


@functools.lru_cache(maxsize=16)
def _document(server_url, version):
    # Imported here: the router imports this module for its table.
    from nova_lite.api import router
    return openapi.build(router.ROUTES, server_url, version)


def show(req):
    """200 {"openapi": "3.1.0", "paths": ...}: the document of /v2.1 at
    the microversion the request negotiated (see api/openapi.py), its
    server the URL the caller used."""
    return wsgi.json_response(_document(req.application_url.rstrip('/'),
                                        req.api_version_request))
