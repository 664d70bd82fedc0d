"""AggregateImagePropertiesIsolation: hosts whose aggregates' metadata
agrees with the image's properties."""

from nova_lite.conf import CONF
from nova_lite.scheduler.filters import rules
from nova_lite.scheduler import partitions
from nova_lite.scheduler import population as population_mod
from nova_lite.scheduler import utils


class AggregateImagePropertiesIsolation(rules.RuleFilter):
    """Passes a host unless one of its aggregates' metadata keys names a
    standard image property that the image sets to a value the metadata
    does not list.

    Only keys starting with ``aggregate_image_properties_isolation_
    namespace`` + ``_separator`` are considered when a namespace is set.
    Values are compared as strings; comma-separated metadata values are
    alternatives, and aggregates giving the same key pool their values.
    A host in no aggregate, an image without the property, and a key that
    is no image property all pass (seed 000; the isolation is therefore
    one-way, bug 1677217). Rejection reason: "image <key>=<value> not in
    aggregate".
    """

    run_filter_once_per_request = True
    # The image may change on a rebuild: checked then too, as in Nova.
    RUN_ON_REBUILD = True

    def parse_request(self, spec_obj):
        """(image properties, metadata key prefix)."""
        props = utils.image_props(spec_obj)
        if props is None:
            return rules.EVERY_HOST
        opts = CONF.filter_scheduler
        namespace = opts.aggregate_image_properties_isolation_namespace
        separator = opts.aggregate_image_properties_isolation_separator
        return props, namespace + separator if namespace else ''

    def failure(self, host_state, request):
        props, prefix = request
        metadata = utils.aggregate_metadata_get_by_host(host_state)
        for key, options in sorted(metadata.items()):
            if not key.startswith(prefix):
                continue
            prop = props.get(key)
            if prop is not None and str(prop) not in options:
                return 'image %s=%s not in aggregate' % (key, prop)
        return None

    def partition(self, request):
        # Only the host's aggregates count: once per distinct set.
        return 'aggregates', population_mod.aggregates_key

    def cache_key(self, request):
        props, prefix = request
        return ('image isolation', partitions.freeze(props.to_dict()),
                prefix)
