"""HTTP to a Glance v2 API with the caller's token, through keystoneauth1.

``ContextAuth`` is a keystoneauth1 plugin that hands Glance the token of
the request context and finds Glance in the context's service catalog
(the X-Service-Catalog keystonemiddleware passed on, which is in the
Identity v2 shape even for v3 tokens), unless ``[glance]
endpoint_override`` names it. ``GlanceClient.request`` turns every failure
into a nova_lite exception: a Glance that cannot be reached, times out,
answers 5xx or is absent from the catalog is ImageServiceUnavailable
(503), never an uncaught error.
"""

import logging

from keystoneauth1.access import service_catalog
from keystoneauth1 import adapter
from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import plugin
from keystoneauth1 import session as ks_session

from nova_lite import conf
from nova_lite import exception

CONF = conf.CONF
LOG = logging.getLogger(__name__)


class ContextAuth(plugin.BaseAuthPlugin):
    """The token and the catalog of one request context."""

    def __init__(self, context):
        super().__init__()
        self.context = context

    def get_token(self, session, **kwargs):
        return self.context.auth_token

    def get_headers(self, session, **kwargs):
        # A context with no token (a service acting for itself) still
        # asks: Glance answers 401 itself if it wants one.
        token = self.context.auth_token
        return {'X-Auth-Token': token} if token else {}

    def get_endpoint(self, session, service_type=None, interface=None,
                     region_name=None, **kwargs):
        # keystonemiddleware turns a v3 token's catalog into the v2 shape
        # ({region, publicURL, internalURL, ...} per endpoint) before it
        # sets X-Service-Catalog, as Nova's own context plugin expects.
        catalog = service_catalog.ServiceCatalogV2(
            self.context.service_catalog or [])
        try:
            return catalog.url_for(service_type=service_type,
                                   interface=interface,
                                   region_name=region_name)
        except ks_exc.EndpointNotFound:
            return None


def _session():
    verify = False if CONF.glance.insecure else (CONF.glance.cafile or True)
    return ks_session.Session(verify=verify, timeout=CONF.glance.timeout)


class GlanceClient:
    """One Glance v2 API; a keystoneauth1 session per process."""

    def __init__(self):
        self.session = _session()

    def _adapter(self, context):
        return adapter.Adapter(
            self.session, auth=ContextAuth(context),
            service_type=CONF.glance.service_type,
            interface=CONF.glance.valid_interfaces,
            region_name=CONF.glance.region_name,
            endpoint_override=CONF.glance.endpoint_override,
            connect_retries=CONF.glance.connect_retries,
            raise_exc=False)

    def request(self, context, method, url, **kwargs):
        """The response to ``method url`` (below the API root, e.g.
        /v2/images); raises ImageServiceUnavailable when Glance cannot
        answer, and returns 4xx responses for the caller to read."""
        try:
            resp = self._adapter(context).request(url, method, **kwargs)
        except ks_exc.EndpointNotFound:
            raise exception.ImageServiceUnavailable(
                reason='no %r endpoint in the service catalog and no '
                       '[glance] endpoint_override' %
                       CONF.glance.service_type)
        except (ks_exc.ConnectionError, ks_exc.RequestTimeout) as exc:
            LOG.warning('Glance %s %s failed: %s', method, url, exc)
            raise exception.ImageServiceUnavailable(
                reason='cannot reach it (%s)' % type(exc).__name__)
        if resp.status_code >= 500:
            LOG.warning('Glance %s %s answered %s: %s', method, url,
                        resp.status_code, resp.text[:200])
            raise exception.ImageServiceUnavailable(
                reason='it answered %s' % resp.status_code)
        if resp.status_code == 401:
            raise exception.NotAuthenticated(
                message='The image service refused the token.')
        return resp
