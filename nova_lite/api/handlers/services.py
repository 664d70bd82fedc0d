"""/os-services: the daemons and their state (administrators)."""

from nova_lite.api import common
from nova_lite.api.schemas import services as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite import objects
from nova_lite.policies import services as policies

COMPUTE_BINARY = 'nova-lite-compute'
# Nova's zone names: computes are in the default availability zone (no
# aggregates define others yet), every other service in "internal".
DEFAULT_ZONE = 'nova'
INTERNAL_ZONE = 'internal'


def service_view(service):
    """Nova's 2.1 service, with 2.11's forced_down."""
    return {
        'id': service.id,
        'binary': service.binary,
        'host': service.host,
        'zone': DEFAULT_ZONE if service.binary == COMPUTE_BINARY
        else INTERNAL_ZONE,
        'status': 'disabled' if service.disabled else 'enabled',
        'state': 'up' if service.is_up else 'down',
        'updated_at': common.isotime_usec(service.last_seen_up or
                                          service.updated_at),
        'disabled_reason': service.disabled_reason,
        'forced_down': service.forced_down,
    }


@validation.query(schema.INDEX_QUERY)
def index(req):
    """200 {"services": [...]}, filtered by ?host= and ?binary=."""
    context = req.context
    context.can(policies.SERVICES % 'list', target={})
    services = objects.ServiceList.get_all(
        context, binary=common.last_param(req, 'binary'),
        host=common.last_param(req, 'host'))
    return wsgi.json_response(
        {'services': [service_view(s) for s in services]})
