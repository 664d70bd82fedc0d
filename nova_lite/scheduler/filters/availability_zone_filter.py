"""AvailabilityZoneFilter: hosts in the requested availability zone
(seed 002)."""

from nova_lite.scheduler import filters
from nova_lite.scheduler import population as population_mod
from nova_lite.scheduler import utils


def host_zones(host_state):
    """The zones of the host: the ``availability_zone`` metadata of its
    aggregates, else its own ``availability_zone`` (the default zone for
    a host in no zone aggregate)."""
    zones = utils.aggregate_metadata_get_by_host(
        host_state, key='availability_zone').get('availability_zone')
    if zones:
        return zones
    zone = getattr(host_state, 'availability_zone', None)
    return {zone} if zone else set()


def zone_key(host_state):
    return (population_mod.aggregates_key(host_state),
            getattr(host_state, 'availability_zone', None))


class AvailabilityZoneFilter(filters.BaseHostFilter):
    """Passes hosts in the request's ``availability_zone``; a request
    without one passes every host. The placement prefilter
    (``[scheduler] query_placement_for_availability_zone``) does the same
    earlier and cheaper; this filter is for configurations of the older
    releases. Rejection reason: "not in zone <zone>".
    """

    run_filter_once_per_request = True

    def host_passes(self, host_state, spec_obj):
        zone = utils.spec_field(spec_obj, 'availability_zone')
        return not zone or zone in host_zones(host_state)

    def filter_population(self, population, spec_obj):
        zone = utils.spec_field(spec_obj, 'availability_zone')
        if not zone:
            return True
        return population.evaluate(
            'zones', zone_key, lambda host: self.host_passes(host, spec_obj),
            cache=zone)

    def rejection_reason(self, host_state, spec_obj):
        if self.host_passes(host_state, spec_obj):
            return None
        return 'not in zone %s' % spec_obj.availability_zone
