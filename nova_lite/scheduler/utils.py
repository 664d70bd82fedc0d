"""Small helpers shared by filters and weighers.

Host aggregates (Nova's, with metadata) reach filters as
``host_state.aggregates``: objects with ``name``, ``uuid``, ``hosts`` and a
``metadata`` dict of strings. Several aggregates may give one key; for
numbers "the minimum wins" (seed 000), through ``aggregate_min``.

Request fields that older RequestSpecs lack, or that are unset, are read
through ``spec_field`` so a filter never trips over a missing field.
"""

import collections

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


def host_aggregates(host_state):
    """The aggregates of ``host_state`` that carry metadata."""
    return [agg for agg in getattr(host_state, 'aggregates', None) or ()
            if getattr(agg, 'metadata', None) is not None]


def aggregate_values_from_key(host_state, key_name):
    """The set of values ``key_name`` has in the host's aggregates."""
    return {agg.metadata[key_name] for agg in host_aggregates(host_state)
            if key_name in agg.metadata}


def aggregate_metadata_get_by_host(host_state, key=None):
    """{metadata key: set of values} over the host's aggregates.

    Values are split on commas and stripped. With ``key``, only the
    aggregates having that key contribute (all of their metadata, as in
    Nova).
    """
    metadata = collections.defaultdict(set)
    for agg in host_aggregates(host_state):
        if key is None or key in agg.metadata:
            for name, value in agg.metadata.items():
                metadata[name].update(v.strip() for v in str(value).split(','))
    return metadata


def validate_num_values(values, default=None, cast_to=int, based_on=min):
    """``based_on`` (min) of ``values`` cast with ``cast_to``, or
    ``default`` when there are none. Raises ValueError on a bad value."""
    if not values:
        return default
    return based_on(cast_to(value) for value in values)


def aggregate_min(host_state, key_name, default, cast_to=int):
    """The smallest ``key_name`` among the host's aggregates, or
    ``default`` when none gives it or a value is not a number (logged)."""
    values = aggregate_values_from_key(host_state, key_name)
    try:
        return validate_num_values(values, default, cast_to=cast_to)
    except (TypeError, ValueError) as exc:
        LOG.warning('Could not decode aggregate metadata %s=%s of host '
                    '%s: %s', key_name, sorted(values),
                    getattr(host_state, 'host', '?'), exc)
        return default


def get_weight_multiplier(host_state, multiplier_name, multiplier_config):
    """The multiplier of weigher option ``multiplier_name`` for a host.

    This is the single hook for per-aggregate overrides: as Nova does
    since Stein, the smallest ``multiplier_name`` value found in the
    metadata of the host's aggregates, else ``multiplier_config``.
    """
    return aggregate_min(host_state, multiplier_name, multiplier_config,
                         cast_to=float)


def instance_uuids_overlap(host_state, uuids):
    """True when one of ``uuids`` (a list or one string) is an instance on
    ``host_state``."""
    if isinstance(uuids, str):
        uuids = [uuids]
    instances = getattr(host_state, 'instances', None) or {}
    return any(uuid in instances for uuid in uuids)


def pci_pools(host_state):
    """The host's free PCI device pools: ``host_state.pci_stats``, a list
    of {'vendor_id', 'product_id', 'dev_type', 'numa_node', 'count'}
    (or an object with such ``pools``, as Nova's PciDeviceStats)."""
    stats = getattr(host_state, 'pci_stats', None)
    return list(getattr(stats, 'pools', stats) or ())


def parse_options(opts, sep='=', converter=str, name=''):
    """[(key, converter(value))] of "key<sep>value" strings.

    Malformed entries (no separator, empty key, a value ``converter``
    rejects) are skipped with a warning naming option ``name``.
    """
    good = []
    for opt in opts or ():
        key, found, value = str(opt).partition(sep)
        key = key.strip()
        try:
            if not (found and key):
                raise ValueError('expected key%svalue' % sep)
            good.append((key, converter(value.strip())))
        except (TypeError, ValueError) as exc:
            LOG.warning('Ignoring "%s" in %s: %s', opt, name, exc)
    return good


def spec_field(spec_obj, name, default=None):
    """``spec_obj.name``, or ``default`` when the field is unset or the
    RequestSpec (an older version, or a duck-typed one) has no such
    field."""
    is_set = getattr(spec_obj, 'obj_attr_is_set', None)
    if is_set is not None:
        try:
            if not is_set(name):
                return default
        except AttributeError:
            # Not a field of this version: maybe a plain attribute.
            pass
    value = getattr(spec_obj, name, default)
    return default if value is None else value


def extra_specs(spec_obj):
    """The flavor's extra specs ({} when there is no flavor or none)."""
    flavor = spec_field(spec_obj, 'flavor')
    if flavor is None:
        return {}
    return spec_field(flavor, 'extra_specs', {}) or {}


def image_props(spec_obj):
    """The request image's ImageMetaProps, or None (volume-backed)."""
    image = spec_field(spec_obj, 'image')
    if image is None:
        return None
    return spec_field(image, 'properties')


def image_prop(spec_obj, name, default=None):
    """One image property of the request, or ``default``."""
    props = image_props(spec_obj)
    if props is None:
        return default
    value = props.get(name)
    return default if value is None else value


def group_policy(group):
    """The policy of an InstanceGroup (``policy``, or the first of the
    older ``policies`` list), or None."""
    if group is None:
        return None
    policy = spec_field(group, 'policy')
    if policy:
        return policy
    policies = spec_field(group, 'policies') or []
    return policies[0] if policies else None


# The scheduler hint with which a rebuild asks whether the instance's own
# host still suits the new image (Nova's name for it).
CHECK_TYPE_HINT = '_nova_check_type'


def request_is_rebuild(spec_obj):
    """Whether ``spec_obj`` asks to check a host for a rebuild: its
    scheduler hint ``_nova_check_type`` is "rebuild" (stored as
    ``['rebuild']``). Only filters with ``RUN_ON_REBUILD`` run then, and
    nothing is claimed: the instance keeps its allocation."""
    hints = spec_field(spec_obj, 'scheduler_hints') or {}
    value = hints.get(CHECK_TYPE_HINT)
    if isinstance(value, (list, tuple)):
        return list(value) == ['rebuild']
    return value == 'rebuild'


def steps_for_request(steps, spec_obj):
    """The filter steps of ``steps`` that run for ``spec_obj``: all of
    them, or for a rebuild those with ``RUN_ON_REBUILD`` (the others
    pass every host, as in Nova)."""
    if not request_is_rebuild(spec_obj):
        return steps
    return [step for step in steps if getattr(step, 'RUN_ON_REBUILD', False)]
