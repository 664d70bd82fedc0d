"""Prefilters: what placement can answer, asked before the filters run.

Each prefilter reads the request (and the host aggregates the scheduler
holds in memory) and turns it into constraints on resource providers, as
Nova's request filters add to its placement query:

* ``required_traits`` / ``forbidden_traits``: the provider must have
  every required trait and none of the forbidden ones;
* ``member_of``: the provider must be in at least one of these placement
  aggregates;
* ``forbidden_aggregates``: the provider must be in none of these.

``process_reqspec`` returns one ``Prefilter`` per prefilter that
constrains the request. Each is a step of the scheduling pipeline like a
filter (it runs once per request, before the capacity check), so a
NoValidHost names it and says why hosts were removed::

    map_az_to_placement_aggregate: 12 -> 4 (8 not in availability zone
    az1); compute_status_filter: 4 -> 3 (1 disabled)

The prefilters, in order (Nova's names): ``require_tenant_aggregate``,
``map_az_to_placement_aggregate``, ``require_image_type_support``,
``compute_status_filter``, ``isolate_aggregates``, and
``required_traits`` (the flavor's ``trait:X=required|forbidden`` extra
specs and the image's required traits, which Nova puts in its placement
query directly).
"""

import functools

import numpy as np
import os_traits
from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite.scheduler import filters
from nova_lite.scheduler import population as population_mod

LOG = logging.getLogger(__name__)

TENANT_KEY = 'filter_tenant_id'
AZ_KEY = 'availability_zone'
TRAIT_PREFIX = 'trait:'
REQUIRED = 'required'
FORBIDDEN = 'forbidden'


class Prefilter(filters.BaseHostFilter):
    """Passes hosts whose provider meets every constraint: all
    ``required_traits``, none of ``forbidden_traits``, at least one
    aggregate of ``member_of``, none of ``forbidden_aggregates``.

    ``step_name`` is the prefilter's name. Rejection reasons: "lack
    <TRAIT>", "have <TRAIT>" (``forbidden_label`` instead when given,
    e.g. "disabled"), "not in <member_label>", "in <forbidden aggregates'
    label>", or ``reason`` for every host when the prefilter leaves none.
    """

    # Its answer for a host depends on that host alone (see
    # BaseHostFilter.incremental).
    incremental = True

    run_filter_once_per_request = True

    def __init__(self, name, required_traits=(), forbidden_traits=(),
                 member_of=None, member_label=None, forbidden_aggregates=(),
                 forbidden_labels=None, forbidden_label=None, reason=None):
        self.name = name
        self.required_traits = frozenset(required_traits)
        self.forbidden_traits = frozenset(forbidden_traits)
        self.member_of = None if member_of is None else frozenset(member_of)
        self.member_label = member_label
        self.forbidden_aggregates = frozenset(forbidden_aggregates)
        # {aggregate uuid: how to name it in a reason}
        self.forbidden_labels = dict(forbidden_labels or {})
        self.forbidden_label = forbidden_label
        self.reason = reason

    @property
    def step_name(self):
        return self.name

    def host_passes(self, host_state, spec_obj):
        return self.rejection_reason(host_state, spec_obj) is None

    def filter_population(self, population, spec_obj):
        if self.reason is not None:
            return np.zeros(population.size, bool)
        passed = True
        for trait in self.required_traits:
            passed = population_mod.both(
                passed, _trait_column(population, trait))
        for trait in self.forbidden_traits:
            passed = population_mod.both(
                passed, ~_trait_column(population, trait))
        if self.member_of is not None or self.forbidden_aggregates:
            passed = population_mod.both(passed, population.evaluate(
                'provider_aggregates', _provider_aggregates,
                self._aggregates_pass,
                cache=(self.member_of, self.forbidden_aggregates)))
        return passed

    def _aggregates_pass(self, host_state):
        aggregates = host_state.provider_aggregates
        if self.member_of is not None and not self.member_of & aggregates:
            return False
        return not self.forbidden_aggregates & aggregates

    def rejection_reason(self, host_state, spec_obj):
        if self.reason is not None:
            return self.reason
        traits = host_state.traits
        missing = self.required_traits - traits
        if missing:
            return 'lack %s' % ', '.join(sorted(missing))
        present = self.forbidden_traits & traits
        if present:
            return self.forbidden_label or 'have %s' % ', '.join(
                sorted(present))
        aggregates = host_state.provider_aggregates
        if self.member_of is not None and not self.member_of & aggregates:
            return 'not in %s' % (self.member_label or 'a required '
                                  'aggregate')
        isolated = self.forbidden_aggregates & aggregates
        if isolated:
            return 'in %s' % ', '.join(sorted(
                self.forbidden_labels.get(u, u) for u in isolated))
        return None

    def __repr__(self):
        return '<Prefilter %s>' % self.name


def _has_trait(trait, host_state):
    return trait in host_state.traits


def _trait_column(population, trait):
    return population.derived(('trait', trait),
                              functools.partial(_has_trait, trait), bool)


def _provider_aggregates(host_state):
    return frozenset(host_state.provider_aggregates)


def _flavor_traits(spec_obj):
    """(required, forbidden) trait names of the flavor's extra specs."""
    flavor = spec_obj.flavor if spec_obj.obj_attr_is_set('flavor') else None
    required, forbidden = set(), set()
    for key, value in (getattr(flavor, 'extra_specs', None) or {}).items():
        if not key.startswith(TRAIT_PREFIX):
            continue
        name = key[len(TRAIT_PREFIX):]
        if value == REQUIRED:
            required.add(name)
        elif value == FORBIDDEN:
            forbidden.add(name)
    return required, forbidden


def _image(spec_obj):
    return spec_obj.image if spec_obj.obj_attr_is_set('image') else None


def _image_traits(spec_obj):
    """Traits the image requires (its ``trait:X=required`` properties,
    parsed into ``traits_required`` by ImageMetaProps)."""
    image = _image(spec_obj)
    if image is None or not image.obj_attr_is_set('properties'):
        return set()
    return set(image.properties.get('traits_required') or ())


def _spec_value(spec_obj, name, default=None):
    if not spec_obj.obj_attr_is_set(name):
        return default
    value = getattr(spec_obj, name)
    return default if value is None else value


def require_tenant_aggregate(spec_obj, aggregates):
    """With [scheduler] limit_tenants_to_placement_aggregate: a project
    named by aggregates' filter_tenant_id* metadata only goes to them."""
    if not CONF.scheduler.limit_tenants_to_placement_aggregate:
        return None
    project = spec_obj.project_id
    mine = {agg.uuid for agg in aggregates
            if any(key.startswith(TENANT_KEY) and project in _values(value)
                   for key, value in agg.metadata.items())}
    name = 'require_tenant_aggregate'
    if mine:
        return Prefilter(name, member_of=mine,
                         member_label='an aggregate of project %s' % project)
    if CONF.scheduler.placement_aggregate_required_for_tenants:
        return Prefilter(name, reason='no aggregate is for project %s'
                         % project)
    return None


def _values(text):
    return {value.strip() for value in str(text).split(',')}


def map_az_to_placement_aggregate(spec_obj, aggregates):
    """A request for a zone goes to the aggregates defining it (none
    define the default zone: such a request is not narrowed)."""
    if not CONF.scheduler.query_placement_for_availability_zone:
        return None
    zone = _spec_value(spec_obj, 'availability_zone')
    if not zone:
        return None
    uuids = {agg.uuid for agg in aggregates
             if agg.metadata.get(AZ_KEY) == zone}
    if not uuids:
        return None
    return Prefilter('map_az_to_placement_aggregate', member_of=uuids,
                     member_label='availability zone %s' % zone)


def require_image_type_support(spec_obj, aggregates):
    """With [scheduler] query_placement_for_image_type_support: only
    providers with COMPUTE_IMAGE_TYPE_<the image's disk format>."""
    if not CONF.scheduler.query_placement_for_image_type_support:
        return None
    if _spec_value(spec_obj, 'is_bfv', False):
        return None
    image = _image(spec_obj)
    if image is None or not image.obj_attr_is_set('disk_format'):
        return None
    trait = 'COMPUTE_IMAGE_TYPE_%s' % image.disk_format.upper()
    if not hasattr(os_traits, trait):
        LOG.error('Disk format %s has no COMPUTE_IMAGE_TYPE trait; not '
                  'filtering on image type support', image.disk_format)
        return None
    return Prefilter('require_image_type_support', required_traits={trait})


def compute_status_filter(spec_obj, aggregates):
    """Never a provider of a disabled compute service (always on)."""
    return Prefilter('compute_status_filter',
                     forbidden_traits={os_traits.COMPUTE_STATUS_DISABLED},
                     forbidden_label='disabled')


def isolate_aggregates(spec_obj, aggregates):
    """With [scheduler] enable_isolated_aggregate_filtering: an aggregate
    whose metadata requires traits (trait:X=required) only takes requests
    that require all of them (flavor and image)."""
    if not CONF.scheduler.enable_isolated_aggregate_filtering:
        return None
    wanted = _flavor_traits(spec_obj)[0] | _image_traits(spec_obj)
    isolated = {}
    for agg in aggregates:
        needs = {key[len(TRAIT_PREFIX):] for key, value
                 in agg.metadata.items()
                 if key.startswith(TRAIT_PREFIX) and value == REQUIRED}
        if needs - wanted:
            isolated[agg.uuid] = 'isolated aggregate %s' % agg.name
    if not isolated:
        return None
    return Prefilter('isolate_aggregates', forbidden_aggregates=isolated,
                     forbidden_labels=isolated)


def required_traits(spec_obj, aggregates):
    """The flavor's trait:X=required|forbidden and the image's required
    traits."""
    required, forbidden = _flavor_traits(spec_obj)
    required |= _image_traits(spec_obj)
    if not (required or forbidden):
        return None
    return Prefilter('required_traits', required_traits=required,
                     forbidden_traits=forbidden - required)


ALL_REQUEST_FILTERS = (
    require_tenant_aggregate,
    map_az_to_placement_aggregate,
    require_image_type_support,
    compute_status_filter,
    isolate_aggregates,
    required_traits,
)


def process_reqspec(spec_obj, aggregates):
    """The Prefilter steps of a request, in order; ``aggregates`` are the
    host aggregates (with uuid, name, metadata) the scheduler knows."""
    aggregates = list(aggregates)
    steps = []
    for prefilter in ALL_REQUEST_FILTERS:
        step = prefilter(spec_obj, aggregates)
        if step is not None:
            steps.append(step)
    return steps
