"""The route table of /v2.1 and the dispatcher in front of the handlers.

Every path works with and without a ``/{project_id}`` prefix, as Nova's
``ProjectMapper`` allows (clients built for either catalogue style work);
a prefix that is not the caller's project is a 400, as in Nova. Routes
without a prefix are tried first, so a project named like a collection
cannot shadow one.

Before a handler runs the microversion is negotiated (406 if not
supported); after it, or after the exception it raised became a fault,
the response gets the version headers.
"""

from oslo_log import log as logging
import routes
import webob.dec
import webob.exc

from nova_lite.api import api_version
from nova_lite.api import faults
from nova_lite.api.handlers import aggregate_images
from nova_lite.api.handlers import aggregates
from nova_lite.api.handlers import availability_zone
from nova_lite.api.handlers import flavor_access
from nova_lite.api.handlers import flavor_extra_specs
from nova_lite.api.handlers import flavors
from nova_lite.api.handlers import hosts
from nova_lite.api.handlers import hypervisor_search
from nova_lite.api.handlers import hypervisors
from nova_lite.api.handlers import images
from nova_lite.api.handlers import instance_actions
from nova_lite.api.handlers import keypairs
from nova_lite.api.handlers import limits
from nova_lite.api.handlers import migrations
from nova_lite.api.handlers import openapi
from nova_lite.api.handlers import quota_sets
from nova_lite.api.handlers import server_actions
from nova_lite.api.handlers import server_diagnostics
from nova_lite.api.handlers import server_groups
from nova_lite.api.handlers import server_live_migrate
from nova_lite.api.handlers import server_metadata
from nova_lite.api.handlers import server_shares
from nova_lite.api.handlers import server_tags
from nova_lite.api.handlers import server_topology
from nova_lite.api.handlers import servers
from nova_lite.api.handlers import services
from nova_lite.api.handlers import simple_tenant_usage
from nova_lite.api.handlers import versions
from nova_lite.api import wsgi
from nova_lite import exception

LOG = logging.getLogger(__name__)

# path below /v2.1 (and /v2.1/{project_id}) -> {HTTP method: handler}.
# Literal paths come before the {id} ones that would also match them.
ROUTES = {
    '': {'GET': versions.show},
    '/servers': {'GET': servers.index, 'POST': servers.create},
    '/servers/detail': {'GET': servers.detail},
    '/servers/{server_id}': {'GET': servers.show, 'PUT': servers.update,
                             'DELETE': servers.delete},
    '/servers/{server_id}/action': {'POST': server_actions.action},
    '/servers/{server_id}/diagnostics': {'GET': server_diagnostics.index},
    '/servers/{server_id}/metadata': {
        'GET': server_metadata.index, 'POST': server_metadata.create,
        'PUT': server_metadata.update_all},
    '/servers/{server_id}/metadata/{key}': {
        'GET': server_metadata.show, 'PUT': server_metadata.update,
        'DELETE': server_metadata.delete},
    '/servers/{server_id}/tags': {
        'GET': server_tags.index, 'PUT': server_tags.update_all,
        'DELETE': server_tags.delete_all},
    '/servers/{server_id}/tags/{tag}': {
        'GET': server_tags.show, 'PUT': server_tags.update,
        'DELETE': server_tags.delete},
    '/servers/{server_id}/topology': {'GET': server_topology.index},
    '/servers/{server_id}/shares': {
        'GET': server_shares.index, 'POST': server_shares.create},
    '/servers/{server_id}/shares/{share_id}': {
        'GET': server_shares.show, 'DELETE': server_shares.delete},
    '/servers/{server_id}/migrations': {'GET': migrations.server_index},
    '/servers/{server_id}/migrations/{migration_id}': {
        'GET': server_live_migrate.show,
        'DELETE': server_live_migrate.delete},
    '/servers/{server_id}/migrations/{migration_id}/action': {
        'POST': server_live_migrate.action},
    '/os-migrations': {'GET': migrations.index},
    '/servers/{server_id}/os-instance-actions': {
        'GET': instance_actions.index},
    '/servers/{server_id}/os-instance-actions/{request_id}': {
        'GET': instance_actions.show},
    '/os-keypairs': {'GET': keypairs.index, 'POST': keypairs.create},
    '/os-keypairs/{keypair_name}': {'GET': keypairs.show,
                                    'DELETE': keypairs.delete},
    '/flavors': {'GET': flavors.index, 'POST': flavors.create},
    '/flavors/detail': {'GET': flavors.detail},
    '/flavors/{flavor_id}': {'GET': flavors.show, 'PUT': flavors.update,
                             'DELETE': flavors.delete},
    '/flavors/{flavor_id}/os-extra_specs': {
        'GET': flavor_extra_specs.index, 'POST': flavor_extra_specs.create},
    '/flavors/{flavor_id}/os-extra_specs/{key}': {
        'GET': flavor_extra_specs.show, 'PUT': flavor_extra_specs.update,
        'DELETE': flavor_extra_specs.delete},
    '/images': {'GET': images.index},
    '/images/detail': {'GET': images.detail},
    '/images/{image_id}': {'GET': images.show, 'DELETE': images.delete},
    '/os-services': {'GET': services.index},
    '/os-services/{service_id}': {'PUT': services.update,
                                  'DELETE': services.delete},
    '/os-aggregates': {'GET': aggregates.index, 'POST': aggregates.create},
    '/os-aggregates/{aggregate_id}': {
        'GET': aggregates.show, 'PUT': aggregates.update,
        'DELETE': aggregates.delete},
    '/os-aggregates/{aggregate_id}/action': {'POST': aggregates.action},
    '/os-aggregates/{aggregate_id}/images': {
        'POST': aggregate_images.cache},
    '/os-server-groups': {'GET': server_groups.index,
                          'POST': server_groups.create},
    '/os-server-groups/{group_id}': {'GET': server_groups.show,
                                     'DELETE': server_groups.delete},
    '/os-hypervisors': {'GET': hypervisors.index},
    '/os-hypervisors/detail': {'GET': hypervisors.detail},
    '/os-hypervisors/statistics': {'GET': hypervisors.statistics},
    '/os-hypervisors/{hypervisor_id}': {'GET': hypervisors.show},
    '/limits': {'GET': limits.index},
    '/os-quota-sets/{tenant_id}': {
        'GET': quota_sets.show, 'PUT': quota_sets.update,
        'DELETE': quota_sets.delete},
    '/os-quota-sets/{tenant_id}/detail': {'GET': quota_sets.detail},
    '/os-quota-sets/{tenant_id}/defaults': {'GET': quota_sets.defaults},
    '/os-quota-class-sets/{class_name}': {
        'GET': quota_sets.show_class, 'PUT': quota_sets.update_class},
    '/os-availability-zone': {'GET': availability_zone.index},
    '/flavors/{flavor_id}/os-flavor-access': {'GET': flavor_access.index},
    '/flavors/{flavor_id}/action': {'POST': flavor_access.action},
    '/os-simple-tenant-usage': {'GET': simple_tenant_usage.index},
    '/os-hosts': {'GET': hosts.index},
    '/os-hosts/{host_name}': {'GET': hosts.show, 'PUT': hosts.update},
    '/os-hosts/{host_name}/startup': {'GET': hosts.startup},
    '/os-hosts/{host_name}/shutdown': {'GET': hosts.shutdown},
    '/os-hosts/{host_name}/reboot': {'GET': hosts.reboot},
    '/os-simple-tenant-usage/{tenant_id}': {
        'GET': simple_tenant_usage.show},
    '/os-hypervisors/{hypervisor_id}/uptime': {'GET': hypervisors.uptime},
    '/os-hypervisors/{hypervisor_hostname_pattern}/search': {
        'GET': hypervisor_search.search},
    '/os-hypervisors/{hypervisor_hostname_pattern}/servers': {
        'GET': hypervisor_search.servers},
    '/os-availability-zone/detail': {'GET': availability_zone.detail},
    '/openapi.json': {'GET': openapi.show},
}


def make_mapper(route_table):
    """A routes Mapper over ``route_table``, with and without project_id.

    Each path also gets a catch-all route carrying the allowed methods,
    so a known path with a wrong method is a 405, not a 404.
    """
    mapper = routes.Mapper()
    for prefix in ('', '/{project_id}'):
        for path, methods in route_table.items():
            full = (prefix + path) or '/'
            # /{project_id} alone would otherwise catch every unknown
            # top-level path (e.g. a Nova API nova_lite lacks).
            extra = {'_bare': True} if prefix and not path else {}
            for method, handler in methods.items():
                mapper.connect(full, _handler=handler,
                               conditions={'method': [method]}, **extra)
            mapper.connect(full, _allowed=', '.join(sorted(methods)),
                           **extra)
    # Build the regexes now rather than on the first requests, which
    # arrive on several threads at once.
    mapper.create_regs([])
    return mapper


class APIRouter:
    """The /v2.1 application: routes a request to its handler.

    Answers 404 for an unknown path, 405 (with Allow) for a wrong method,
    and otherwise whatever the handler returns or the fault for the
    nova_lite exception it raised.
    """

    def __init__(self, route_table=None):
        self.mapper = make_mapper(route_table or ROUTES)

    @classmethod
    def factory(cls, global_config, **local_config):
        return cls()

    @webob.dec.wsgify(RequestClass=wsgi.Request)
    def __call__(self, req):
        try:
            version = api_version.from_headers(req.headers)
        except exception.NovaLiteException as exc:
            return api_version.add_headers(faults.exception_response(exc),
                                           None)
        req.api_version_request = version
        return api_version.add_headers(self._dispatch(req), version)

    def _dispatch(self, req):
        match = self.mapper.match(req.path_info or '/', environ=req.environ)
        if match is not None and match.pop('_bare', None):
            context = req.context
            if context is None or match['project_id'] != context.project_id:
                match = None
        if match is None:
            return faults.fault_response(
                404, 'The resource could not be found.')
        if '_allowed' in match:
            return faults.fault_response(
                405, 'The method %s is not allowed for this resource.'
                % req.method, headers={'Allow': match['_allowed']})
        handler = match.pop('_handler')
        try:
            self._check_project_id(req, match.pop('project_id', None))
            return handler(req, **match)
        except exception.NovaLiteException as exc:
            if exc.code >= 500:
                LOG.exception('%s %s failed', req.method, req.path)
            return faults.exception_response(exc)
        except webob.exc.HTTPException as exc:
            return faults.fault_response(exc.code,
                                         exc.explanation or exc.title)

    @staticmethod
    def _check_project_id(req, project_id):
        if project_id is None:
            return
        context = req.context
        if context is None or project_id != context.project_id:
            raise exception.MalformedRequestURL(
                project_id=project_id,
                context_project_id=getattr(context, 'project_id', None))
        req.environ[wsgi.URL_PROJECT_KEY] = project_id
