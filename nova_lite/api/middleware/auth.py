"""Who is asking: the pipeline selector and the two auth filters.

``pipeline_factory`` is the paste composite that picks a pipeline by
``[api] auth_strategy`` and ``[api] rate_limit``. ``NoAuthMiddleware``
(``noauth2``) trusts an ``X-Auth-Token: user:project`` header and is for
labs and tests. ``NovaKeystoneContext`` follows keystonemiddleware's
``authtoken``, which validated the token and set the ``X-*`` headers it
reads. Both leave a RequestContext in ``environ['nova_lite.context']``.
"""

import re

from oslo_log import log as logging
from oslo_serialization import jsonutils
import webob.dec

from nova_lite.api import faults
from nova_lite.api.middleware import request_id
from nova_lite.api import wsgi
from nova_lite.conf import CONF
from nova_lite import context as nl_context

LOG = logging.getLogger(__name__)

ADMIN_ROLES = ['admin', 'member', 'reader']
USER_ROLES = ['member', 'reader']
# One name of a noauth2 token: what keystone ids and lab names look like.
_TOKEN_PART = re.compile(r'^[A-Za-z0-9_.@-]{1,255}$')


def pipeline_factory(loader, global_conf, **local_conf):
    """Build the pipeline named after the auth strategy.

    ``local_conf`` maps names to pipelines (filters then the app, space
    separated). The name is ``[api] auth_strategy``, with ``_nolimit``
    appended when ``[api] rate_limit`` is false; a missing ``_nolimit``
    entry is derived by dropping ``ratelimit`` from the limited one.
    """
    strategy = CONF.api.auth_strategy
    names = _pipeline_names(local_conf, strategy, CONF.api.rate_limit)
    filters = [loader.get_filter(name) for name in names[:-1]]
    app = loader.get_app(names[-1])
    for filter_ in reversed(filters):
        app = filter_(app)
    return app


def _pipeline_names(local_conf, strategy, rate_limit):
    if strategy not in local_conf:
        raise ValueError('api-paste.ini has no pipeline for auth_strategy '
                         '%r' % strategy)
    names = local_conf[strategy].split()
    if not rate_limit:
        nolimit = local_conf.get(strategy + '_nolimit')
        names = (nolimit.split() if nolimit
                 else [n for n in names if n != 'ratelimit'])
    return names


def _unauthorized(reason):
    return faults.fault_response(401, reason, headers={
        'WWW-Authenticate': 'Keystone uri="unknown"'})


def _context_kwargs(req):
    return {
        'request_id': req.environ.get(request_id.ENV_REQUEST_ID),
        'global_request_id': req.environ.get('openstack.global_request_id'),
        'remote_address': _remote_address(req),
    }


def _remote_address(req):
    if CONF.api.use_forwarded_for:
        forwarded = req.headers.get('X-Forwarded-For')
        if forwarded:
            # The first address is the client; later ones are proxies.
            return forwarded.split(',')[0].strip()
    return req.remote_addr


class NoAuthMiddleware(wsgi.Middleware):
    """Trusts ``X-Auth-Token: user:project`` (``user`` alone: project=user).

    The user ``admin`` gets roles admin, member and reader; others member
    and reader. A missing or malformed token is answered 401.
    """

    @webob.dec.wsgify(RequestClass=wsgi.Request)
    def __call__(self, req):
        token = req.headers.get('X-Auth-Token')
        if token is None:
            return _unauthorized('Authentication required: send '
                                 'X-Auth-Token "user:project".')
        user_id, sep, project_id = token.strip().partition(':')
        if not sep:
            project_id = user_id
        if not (_TOKEN_PART.match(user_id) and
                _TOKEN_PART.match(project_id)):
            return _unauthorized('Malformed X-Auth-Token: expected '
                                 '"user:project" of letters, digits and '
                                 '"_.@-".')
        roles = list(ADMIN_ROLES if user_id == 'admin' else USER_ROLES)
        req.environ[wsgi.CONTEXT_KEY] = nl_context.RequestContext(
            user_id=user_id, project_id=project_id, roles=roles,
            user_name=user_id, project_name=project_id, auth_token=token,
            **_context_kwargs(req))
        return self.application


class NovaKeystoneContext(wsgi.Middleware):
    """Builds the context from the headers keystonemiddleware set.

    Reads X-User-Id (or X-User), X-Project-Id (or X-Tenant-Id, X-Tenant),
    X-Roles (or the deprecated X-Role), X-User-Name, X-Project-Name,
    X-Auth-Token and X-Service-Catalog (JSON). No user is a 401; a catalog
    that is not JSON is a 500 (keystonemiddleware never sends one).
    """

    @webob.dec.wsgify(RequestClass=wsgi.Request)
    def __call__(self, req):
        headers = req.headers
        user_id = headers.get('X-User-Id', headers.get('X-User'))
        if not user_id:
            LOG.debug('Neither X-User-Id nor X-User found in request')
            return _unauthorized('Authentication required.')
        project_id = headers.get('X-Project-Id', headers.get(
            'X-Tenant-Id', headers.get('X-Tenant')))
        catalog = None
        if headers.get('X-Service-Catalog') is not None:
            try:
                catalog = jsonutils.loads(headers['X-Service-Catalog'])
            except ValueError:
                return faults.fault_response(
                    500, 'Invalid service catalog json.')
        req.environ[wsgi.CONTEXT_KEY] = nl_context.RequestContext(
            user_id=user_id, project_id=project_id, roles=_roles(headers),
            user_name=headers.get('X-User-Name'),
            project_name=headers.get('X-Project-Name',
                                     headers.get('X-Tenant-Name')),
            auth_token=headers.get('X-Auth-Token',
                                   headers.get('X-Storage-Token')),
            service_catalog=catalog, **_context_kwargs(req))
        return self.application


def _roles(headers):
    roles = headers.get('X-Roles')
    if roles is None:
        roles = headers.get('X-Role', '')
        if roles:
            LOG.warning('Sourcing roles from the deprecated X-Role header')
    return [r.strip() for r in roles.split(',') if r.strip()]
