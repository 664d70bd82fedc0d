"""GET /servers/{server_id}/diagnostics (administrators): what the
server's compute reports about it.

Below microversion 2.48 the driver's own flat dict (Nova's 2.1 contract:
any keys); from 2.48 Nova's standardized fields, whatever the driver
(``standard_view``). Errors, as Nova: 404 for a server the caller cannot
see, 409 for one with no host or not running, 400 at 2.48 while the
computes are pinned below the RPC version that has diagnostics, 501 for a
driver without them.
"""

from nova_lite.api import wsgi
from nova_lite.compute import api as compute_api
from nova_lite.compute import diagnostics_api
from nova_lite.policies import server_diagnostics as policies

compute = compute_api.API()
api = diagnostics_api.DiagnosticsAPI()

# From this microversion the standardized fields (Nova's).
STANDARD_DIAGNOSTICS = '2.48'
_FIELDS = ('state', 'driver', 'hypervisor', 'hypervisor_os', 'uptime',
           'config_drive', 'num_cpus', 'num_disks', 'num_nics')
_DETAILS = {
    'cpu_details': ('id', 'time', 'utilisation'),
    'disk_details': ('read_bytes', 'read_requests', 'write_bytes',
                     'write_requests', 'errors_count'),
    'nic_details': ('mac_address', 'rx_octets', 'rx_errors', 'rx_drop',
                    'rx_packets', 'rx_rate', 'tx_octets', 'tx_errors',
                    'tx_drop', 'tx_packets', 'tx_rate'),
}


def standard_view(found):
    """Nova's 2.48 body from the compute's standardized dict: each field
    present (None when the driver did not say), nothing else."""
    view = {name: found.get(name) for name in _FIELDS}
    memory = found.get('memory_details') or {}
    view['memory_details'] = {'maximum': memory.get('maximum'),
                              'used': memory.get('used')}
    for name, keys in _DETAILS.items():
        view[name] = [{key: item.get(key) for key in keys}
                      for item in found.get(name) or ()]
    return view


def index(req, server_id):
    """200 with the diagnostics (see the module docstring for their two
    shapes); 403 for non-administrators, 404, 409, 400 or 501 as there."""
    context = req.context
    instance = compute.get(context, server_id)
    context.can(policies.BASE, target={'project_id': instance.project_id})
    standard = req.api_version_request.matches(STANDARD_DIAGNOSTICS)
    found = api.get_diagnostics(context, instance, standard)
    return wsgi.json_response(standard_view(found) if standard else found)
