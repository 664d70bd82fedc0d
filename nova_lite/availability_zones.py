"""Availability zones: the ``availability_zone`` metadata of aggregates.

A compute host is in the zone its aggregates name, or in [DEFAULT]
default_availability_zone when none does. The other services are shown
in [DEFAULT] internal_service_availability_zone.
"""

from nova_lite.conf import CONF

AZ_KEY = 'availability_zone'


def zone_of(aggregates):
    """The zone ``aggregates`` (of one host) give it: their zone names,
    sorted and comma-joined if several (as Nova shows such a host), else
    the default zone."""
    zones = sorted({agg.metadata[AZ_KEY] for agg in aggregates
                    if agg.metadata.get(AZ_KEY)})
    return ','.join(zones) if zones else CONF.default_availability_zone


def host_zones(aggregates):
    """{host: zone} of every host in ``aggregates``; hosts in none of
    them are in the default zone."""
    by_host = {}
    for agg in aggregates:
        for host in agg.hosts:
            by_host.setdefault(host, []).append(agg)
    return {host: zone_of(aggs) for host, aggs in by_host.items()}


COMPUTE_BINARY = 'nova-lite-compute'


def service_zone(service, zones):
    """The zone of a service: for a compute, its host's in ``zones``
    ({host: zone}, see host_zones) or the default zone; the other
    services are in the internal zone."""
    if service.binary != COMPUTE_BINARY:
        return CONF.internal_service_availability_zone
    return zones.get(service.host, CONF.default_availability_zone)
