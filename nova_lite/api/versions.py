"""Version discovery documents, served without authentication.

``GET /`` lists the API versions; ``GET /v2.1`` describes v2.1, whose
``version`` is the newest microversion (keystoneauth and openstacksdk read
it to negotiate). Nova allows both without a token, and so do we: the
composite in api-paste.ini routes them around the auth filters.
"""

import webob.dec

from nova_lite.api import api_version
from nova_lite.api import faults
from nova_lite.api import wsgi

V21_ID = 'v2.1'
V21_UPDATED = '2013-07-23T11:33:21Z'


def version_v21(base_url):
    """The v2.1 version entry; ``base_url`` is the API root (no /v2.1)."""
    return {
        'id': V21_ID,
        'status': 'CURRENT',
        'version': str(api_version.max_version()),
        'min_version': str(api_version.min_version()),
        'updated': V21_UPDATED,
        'links': [{'rel': 'self', 'href': base_url.rstrip('/') + '/v2.1/'}],
    }


def document(base_url):
    """The {"version": ...} document of v2.1 below ``base_url``."""
    doc = version_v21(base_url)
    doc['links'].append({'rel': 'describedby', 'type': 'text/html',
                         'href': 'https://docs.openstack.org/'})
    doc['media-types'] = [{
        'base': 'application/json',
        'type': 'application/vnd.openstack.compute+json;version=2.1'}]
    return {'version': doc}


class Versions:
    """``GET /``: 200 {"versions": [...]}; other paths 404."""

    @webob.dec.wsgify(RequestClass=wsgi.Request)
    def __call__(self, req):
        if req.path_info not in ('', '/'):
            return faults.fault_response(
                404, 'The resource could not be found.')
        if req.method not in ('GET', 'HEAD'):
            return faults.fault_response(405, 'Method not allowed.',
                                         headers={'Allow': 'GET, HEAD'})
        return wsgi.json_response(
            {'versions': [version_v21(req.application_url)]})

    @classmethod
    def factory(cls, global_config, **local_config):
        return cls()


class VersionV21:
    """``GET /v2.1``: 200 {"version": {...}}, the v2.1 document."""

    @webob.dec.wsgify(RequestClass=wsgi.Request)
    def __call__(self, req):
        if req.method not in ('GET', 'HEAD'):
            return faults.fault_response(405, 'Method not allowed.',
                                         headers={'Allow': 'GET, HEAD'})
        root = strip_version(req.application_url)
        return api_version.add_headers(
            wsgi.json_response(document(root)), api_version.min_version())

    @classmethod
    def factory(cls, global_config, **local_config):
        return cls()


def strip_version(url):
    """``url`` without a trailing /v2.1."""
    url = url.rstrip('/')
    if url.endswith('/' + V21_ID):
        url = url[:-len(V21_ID) - 1]
    return url
