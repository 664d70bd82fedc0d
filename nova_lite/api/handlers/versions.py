"""GET /v2.1/{project_id}: the version document, for authenticated clients
that discover versions below their project's endpoint."""

from nova_lite.api import versions
from nova_lite.api import wsgi


def show(req):
    """200 {"version": {...}}: the v2.1 document."""
    root = versions.strip_version(req.application_url)
    return wsgi.json_response(versions.document(root))
