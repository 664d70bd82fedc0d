"""/os-hypervisors/{pattern}/search and /servers (administrators): the
nodes whose hypervisor_hostname contains the pattern, before 2.53; from
2.53 both are gone (404), replaced by the list's
``hypervisor_hostname_pattern`` and ``with_servers``."""

from nova_lite.api import common
from nova_lite.api.handlers import hypervisors
from nova_lite.api import wsgi


@common.removed_at(hypervisors.UUID_FOR_ID)
def search(req, hypervisor_hostname_pattern):
    """200 {"hypervisors": [{id, hypervisor_hostname, state, status}]} of
    the nodes whose name contains the pattern; 404 if none does."""
    found = hypervisors.matching(hypervisors.nodes(req, 'search'),
                                 hypervisor_hostname_pattern)
    return wsgi.json_response({'hypervisors': [
        hypervisors.basic_view(node, svc) for node, svc in found]})


@common.removed_at(hypervisors.UUID_FOR_ID)
def servers(req, hypervisor_hostname_pattern):
    """200 {"hypervisors": [basic view + "servers": [{uuid, name}]]}: the
    servers on each matching node ("servers" absent when there are none,
    as in Nova); 404 if no node matches."""
    found = hypervisors.matching(hypervisors.nodes(req, 'servers'),
                                 hypervisor_hostname_pattern)
    return wsgi.json_response({'hypervisors': [
        hypervisors.add_servers(req.context, node,
                                hypervisors.basic_view(node, svc))
        for node, svc in found]})
