"""AggregateMultiTenancyIsolation: tenant-isolated aggregates."""

from nova_lite.scheduler import filters
from nova_lite.scheduler import population as population_mod
from nova_lite.scheduler import utils

KEY_PREFIX = 'filter_tenant_id'


def tenants_of(host_state):
    """The projects the host's aggregates isolate it to: every value of
    metadata keys starting with ``filter_tenant_id`` (filter_tenant_id,
    filter_tenant_id2, ...), comma-separated lists included."""
    metadata = utils.aggregate_metadata_get_by_host(host_state)
    tenants = set()
    for key, values in metadata.items():
        if key.startswith(KEY_PREFIX):
            tenants.update(values)
    tenants.discard('')
    return tenants


class AggregateMultiTenancyIsolation(filters.BaseHostFilter):
    """Passes a host in no aggregate with ``filter_tenant_id*`` metadata,
    and a host in such aggregates only for the projects they list.

    This keeps other tenants off isolated hosts; it does not keep the
    listed tenants off other hosts (seed 000). Rejection reason:
    "isolated to other projects".
    """

    run_filter_once_per_request = True

    def host_passes(self, host_state, spec_obj):
        tenants = tenants_of(host_state)
        return not tenants or utils.spec_field(
            spec_obj, 'project_id') in tenants

    def rejection_reason(self, host_state, spec_obj):
        if self.host_passes(host_state, spec_obj):
            return None
        return 'isolated to other projects'

    def filter_population(self, population, spec_obj):
        # Only the host's aggregates count: once per distinct set.
        return population.evaluate(
            'aggregates', population_mod.aggregates_key,
            lambda host: self.host_passes(host, spec_obj),
            cache=('tenant', utils.spec_field(spec_obj, 'project_id')))
