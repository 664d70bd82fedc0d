"""GET /servers/{server_id}/topology (microversion 2.78): the server's
NUMA topology in Nova's shape, ``{"nodes": [...], "pagesize_kb": ...}``.

Each node would show the guest's ``vcpu_set``, ``siblings`` and
``memory_mb``, and to callers allowed the host rule (administrators) its
``host_node`` and ``cpu_pinning``. nova_lite's scheduler fits a NUMA
request to a host's cells, but the instance keeps no NUMA topology of its
own (there is no such instance field), so every server answers as Nova
answers for a server without one: no nodes and no page size.
"""

from nova_lite.api import common
from nova_lite.api import wsgi
from nova_lite.compute import api as compute_api
from nova_lite.policies import server_topology as policies

compute = compute_api.API()
TOPOLOGY_VERSION = '2.78'


def _nodes(instance, show_host):
    """The guest NUMA nodes of ``instance`` as Nova shows them (with the
    host fields if ``show_host``): none, as no instance records one."""
    return []


@common.added_at(TOPOLOGY_VERSION)
def index(req, server_id):
    """200 {"nodes": [...], "pagesize_kb": null}; 404 for a server the
    caller cannot see (and before 2.78), 403 when the policy refuses."""
    context = req.context
    instance = compute.get(context, server_id)
    target = {'project_id': instance.project_id}
    context.can(policies.INDEX, target=target)
    show_host = context.can(policies.HOST_INDEX, target=target, fatal=False)
    return wsgi.json_response({'nodes': _nodes(instance, show_host),
                               'pagesize_kb': None})
