"""AggregateTypeAffinityFilter: aggregates that take only some flavors."""

from nova_lite.scheduler.filters import rules
from nova_lite.scheduler import population as population_mod
from nova_lite.scheduler import utils


def flavor_names(host_state):
    """Flavor names the host's aggregates allow (``instance_type``
    metadata, comma-separated), or an empty set when none restricts."""
    names = set()
    for value in utils.aggregate_values_from_key(host_state,
                                                 'instance_type'):
        names.update(name.strip() for name in value.split(','))
    return names


class AggregateTypeAffinityFilter(rules.RuleFilter):
    """Passes hosts in no aggregate with ``instance_type`` metadata, and
    hosts where one such aggregate lists the flavor's name
    (``instance_type`` is the old word for flavor; the value is one name
    or a comma-separated list, e.g. "m1.nano,m1.small"). Rejection
    reason: "flavor <name> not allowed".
    """

    run_filter_once_per_request = True

    def parse_request(self, spec_obj):
        return spec_obj.flavor.name

    def failure(self, host_state, flavor_name):
        names = flavor_names(host_state)
        if not names or flavor_name in names:
            return None
        return 'flavor %s not allowed' % flavor_name

    def partition(self, flavor_name):
        # Only the host's aggregates count: once per distinct set.
        return 'aggregates', population_mod.aggregates_key

    def cache_key(self, flavor_name):
        return ('flavor', flavor_name)
