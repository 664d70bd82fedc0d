"""AggregateInstanceExtraSpecsFilter: flavor extra specs against the
metadata of the host's aggregates."""

from oslo_log import log as logging

from nova_lite.scheduler import filters
from nova_lite.scheduler import partitions
from nova_lite.scheduler import population as population_mod
from nova_lite.scheduler.filters import extra_specs_ops
from nova_lite.scheduler import utils

LOG = logging.getLogger(__name__)

SCOPE = 'aggregate_instance_extra_specs'


def _requirements(specs):
    """(metadata key, requirement) of the extra specs this filter reads:
    those in its scope, and (for backward compatibility) unscoped ones."""
    for key, req in specs.items():
        scope, sep, name = key.partition(':')
        if not sep:
            yield key, req
        elif scope == SCOPE:
            yield name, req


class AggregateInstanceExtraSpecsFilter(filters.BaseHostFilter):
    """Passes hosts whose aggregates' metadata satisfy every flavor extra
    spec scoped ``aggregate_instance_extra_specs:<key>`` and every
    unscoped one.

    For each such spec some value of ``<key>`` in the host's aggregates
    (comma-separated values count separately) must match the spec's
    requirement, operators as in ComputeCapabilitiesFilter (``s==`` when
    there is none, so "ssd,fast" metadata matches a spec "fast"). A host
    in no aggregate having the key fails. A flavor without extra specs
    passes every host. Other scopes are ignored. Rejection reasons:
    "lack aggregate <key>", "aggregate <key> does not match <req>".
    """

    run_filter_once_per_request = True

    def _failure(self, host_state, spec_obj):
        specs = utils.extra_specs(spec_obj)
        if not specs:
            return None
        metadata = utils.aggregate_metadata_get_by_host(host_state)
        for key, req in _requirements(specs):
            values = metadata.get(key)
            if not values:
                return 'lack aggregate %s' % key
            if not any(extra_specs_ops.match(v, req) for v in values):
                return 'aggregate %s does not match %s' % (key, req)
        return None

    def host_passes(self, host_state, spec_obj):
        failure = self._failure(host_state, spec_obj)
        if failure:
            LOG.debug('%s fails flavor extra specs: %s', host_state, failure)
        return failure is None

    def rejection_reason(self, host_state, spec_obj):
        return self._failure(host_state, spec_obj)

    def filter_population(self, population, spec_obj):
        # Only the host's aggregates count: once per distinct set.
        specs = utils.extra_specs(spec_obj)
        if not specs:
            return True
        return population.evaluate(
            'aggregates', population_mod.aggregates_key,
            lambda host: self.host_passes(host, spec_obj),
            cache=(SCOPE, partitions.freeze(specs)))
