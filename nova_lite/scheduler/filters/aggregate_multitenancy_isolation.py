"""AggregateMultiTenancyIsolation: tenant-isolated aggregates."""

from nova_lite.scheduler.filters import rules
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


class AggregateMultiTenancyIsolation(rules.RuleFilter):
    """Passes a host in no aggregate with ``filter_tenant_id*`` metadata,
    and a host in such aggregates only for the projects they list.

    This keeps other tenants off isolated hosts; it does not keep the
    listed tenants off other hosts (seed 000). Rejection reason:
    "isolated to other projects".
    """

    run_filter_once_per_request = True

    def parse_request(self, spec_obj):
        return utils.spec_field(spec_obj, 'project_id')

    def failure(self, host_state, project_id):
        tenants = tenants_of(host_state)
        if not tenants or project_id in tenants:
            return None
        return 'isolated to other projects'

    def partition(self, project_id):
        # Only the host's aggregates count: once per distinct set.
        return 'aggregates', population_mod.aggregates_key

    def cache_key(self, project_id):
        return ('tenant', project_id)
