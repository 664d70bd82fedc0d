"""/os-availability-zone: the zones servers can be asked into.

A zone is available when an enabled compute service is in it (whether or
not it is up, as in Nova); zones whose computes are all disabled are
listed as unavailable. ``detail`` (administrators) adds each zone's hosts
and their services, the internal zone of the control services included.
"""

from nova_lite.api import common
from nova_lite.api.schemas import availability_zone as schema
from nova_lite.api import service_names
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite import availability_zones
from nova_lite.conf import CONF
from nova_lite import objects
from nova_lite.policies import availability_zone as policies


def _zoned_services(context):
    """[(zone, service)] of every service, sorted by zone then host."""
    zones = availability_zones.host_zones(
        objects.AggregateList.get_all(context))
    pairs = [(availability_zones.service_zone(s, zones), s)
             for s in objects.ServiceList.get_all(context)]
    return sorted(pairs, key=lambda p: (p[0], p[1].host, p[1].binary))


def _split(pairs):
    """(available zones, unavailable zones), each sorted."""
    available = sorted({zone for zone, s in pairs if not s.disabled})
    unavailable = sorted({zone for zone, s in pairs} - set(available))
    return available, unavailable


def _zone(name, available, hosts=None):
    return {'zoneName': name, 'zoneState': {'available': available},
            'hosts': hosts}


@validation.query(schema.INDEX_QUERY)
def index(req):
    """200 {"availabilityZoneInfo": [{zoneName, zoneState: {available},
    hosts: null}]}: the zones of computes, not the internal one."""
    context = req.context
    context.can(policies.AVAILABILITY_ZONE % 'list', target={})
    internal = CONF.internal_service_availability_zone
    available, unavailable = _split(_zoned_services(context))
    info = ([_zone(z, True) for z in available if z != internal] +
            [_zone(z, False) for z in unavailable if z != internal])
    return wsgi.json_response({'availabilityZoneInfo': info})


def _hosts(pairs, zone):
    """{host: {binary: {available, active, updated_at}}} of the enabled
    services in ``zone``."""
    hosts = {}
    for service_zone, service in pairs:
        if service_zone != zone or service.disabled:
            continue
        hosts.setdefault(service.host, {})[
            service_names.to_api(service.binary)] = {
                'available': service.is_up, 'active': True,
                'updated_at': common.isotime_usec(
                    service.last_seen_up or service.updated_at)}
    return hosts


@validation.query(schema.INDEX_QUERY)
def detail(req):
    """200 {"availabilityZoneInfo": [...]} with each available zone's
    hosts and services (administrators)."""
    context = req.context
    context.can(policies.AVAILABILITY_ZONE % 'detail', target={})
    pairs = _zoned_services(context)
    available, unavailable = _split(pairs)
    info = ([_zone(z, True, _hosts(pairs, z)) for z in available] +
            [_zone(z, False) for z in unavailable])
    return wsgi.json_response({'availabilityZoneInfo': info})
