"""AvailabilityZoneFilter: hosts in the requested availability zone
(seed 002)."""

from nova_lite.scheduler.filters import rules
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


class AvailabilityZoneFilter(rules.RuleFilter):
    """Passes hosts in the request's ``availability_zone``; a request
    without one passes every host. The placement prefilter
    (``[scheduler] query_placement_for_availability_zone``) does the same
    earlier and cheaper; this filter is for configurations of the older
    releases. Rejection reason: "not in zone <zone>".
    """

    run_filter_once_per_request = True

    def parse_request(self, spec_obj):
        return (utils.spec_field(spec_obj, 'availability_zone')
                or rules.EVERY_HOST)

    def failure(self, host_state, zone):
        if zone in host_zones(host_state):
            return None
        return 'not in zone %s' % zone

    def partition(self, zone):
        return 'zones', zone_key
