"""AggregateInstanceExtraSpecsFilter: flavor extra specs against the
metadata of the host's aggregates."""

from oslo_log import log as logging

from nova_lite.scheduler import partitions
from nova_lite.scheduler import population as population_mod
from nova_lite.scheduler.filters import extra_specs_ops
from nova_lite.scheduler.filters import rules
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


class AggregateInstanceExtraSpecsFilter(rules.RuleFilter):
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

    def parse_request(self, spec_obj):
        specs = utils.extra_specs(spec_obj)
        return specs if specs else rules.EVERY_HOST

    def failure(self, host_state, specs):
        metadata = utils.aggregate_metadata_get_by_host(host_state)
        for key, req in _requirements(specs):
            values = metadata.get(key)
            if not values:
                found = 'lack aggregate %s' % key
            elif not any(extra_specs_ops.match(v, req) for v in values):
                found = 'aggregate %s does not match %s' % (key, req)
            else:
                continue
            LOG.debug('%s fails flavor extra specs: %s', host_state, found)
            return found
        return None

    def partition(self, specs):
        # Only the host's aggregates count: once per distinct set.
        return 'aggregates', population_mod.aggregates_key

    def cache_key(self, specs):
        return (SCOPE, partitions.freeze(specs))
