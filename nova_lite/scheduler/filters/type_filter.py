"""AggregateTypeAffinityFilter: aggregates that take only some flavors."""

from nova_lite.scheduler import filters
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


class AggregateTypeAffinityFilter(filters.BaseHostFilter):
    """Passes hosts in no aggregate with ``instance_type`` metadata, and
    hosts where one such aggregate lists the flavor's name
    (``instance_type`` is the old word for flavor; the value is one name
    or a comma-separated list, e.g. "m1.nano,m1.small"). Rejection
    reason: "flavor <name> not allowed".
    """

    run_filter_once_per_request = True

    def host_passes(self, host_state, spec_obj):
        names = flavor_names(host_state)
        return not names or spec_obj.flavor.name in names

    def rejection_reason(self, host_state, spec_obj):
        if self.host_passes(host_state, spec_obj):
            return None
        return 'flavor %s not allowed' % spec_obj.flavor.name

    def filter_population(self, population, spec_obj):
        # Only the host's aggregates count: once per distinct set.
        return population.evaluate(
            'aggregates', population_mod.aggregates_key,
            lambda host: self.host_passes(host, spec_obj),
            cache=('flavor', spec_obj.flavor.name))
