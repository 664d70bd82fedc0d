"""The scheduling core: (request, host states) -> claimed selections.

For each instance of a request, in order:

1. the requested-hosts step (``ignore_hosts``, ``force_hosts``,
   ``force_nodes``), when the request has any;
2. the prefilters (``request_filter``): traits and placement aggregates
   the request requires or forbids, each a step of its own;
3. the placement step: hosts where the instance's resources fit, as
   placement would check them;
4. the enabled filters, in order (skipped for forced hosts, as in Nova);
   for a rebuild (hint ``_nova_check_type`` "rebuild", the instance's
   host named by ``force_hosts``/``force_nodes``) only the steps with
   ``RUN_ON_REBUILD`` run, forced or not (no prefilter, no placement
   step), and nothing is claimed;
5. the weighers, then ``shuffle_best_same_weighed_hosts`` and a random
   pick among the best ``host_subset_size``;
6. a claim on the first candidate; a ClaimConflict (another scheduler
   got there first, or a delete changed the provider) refreshes that
   host and claims it again while the refresh shows a change and the
   host still passes every step (at most ``CLAIM_RETRIES`` times), then
   moves to the next candidate.

The claimed host's state is consumed (the instance joins its
``instances``, and the host and instance join the request's server
group), so the next instance sees it, and the next instance starts from
the hosts this one kept. Alternates are the
next ``max_attempts - 1`` candidates, not claimed. If an instance cannot
be placed, the claims already made for the request are released and
NoValidHost says what each step did:

    placement (VCPU=1, MEMORY_MB=512): 100 -> 40 (60 lack MEMORY_MB);
    ComputeFilter: 40 -> 30 (10 down); RamFilter: 30 -> 0 (30 need ...)

Steps 2 to 5 run over the whole population at once (``pipelines``):
each filter and weigher through its whole-population twin when it has
one, host by host otherwise; ``whole_population=False`` runs every one
host by host, the reference the fast path is tested against.

Nothing here reads the database or the bus: claims go through a
``claims.Claimer`` and refreshes through a callback.
"""

import functools
import random
import time

import numpy as np
from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.scheduler import filters
from nova_lite.scheduler import host_state as host_state_mod
from nova_lite.scheduler import kept_masks
from nova_lite.scheduler import pipelines
from nova_lite.scheduler import population as population_mod
from nova_lite.scheduler import selections
from nova_lite.scheduler import utils
from nova_lite.scheduler import weighers

LOG = logging.getLogger(__name__)

# How many times a host whose claim was lost to a concurrent change is
# claimed again (each after a refresh showing it still fits) before the
# next candidate is tried. As many as placement's own writers retry: on a
# busy node (boots and deletes each moving its generation) a few tries in
# a row can lose.
CLAIM_RETRIES = 10


def _spec_list(spec_obj, name):
    if not spec_obj.obj_attr_is_set(name):
        return None
    return getattr(spec_obj, name) or None


class PlacementStep(filters.BaseHostFilter):
    """Passes hosts whose provider can take ``resources`` now: every
    class has inventory, respects min_unit/max_unit/step_size and fits
    (total - reserved) * allocation_ratio after current usage."""

    # Its answer for a host depends on that host alone (see
    # BaseHostFilter.incremental).
    incremental = True

    def __init__(self, resources):
        self.resources = resources

    @property
    def step_name(self):
        return 'placement (%s)' % ', '.join(
            '%s=%s' % item for item in self.resources.items())

    def host_passes(self, host_state, spec_obj):
        return host_state.resource_shortfall(self.resources) is None

    def filter_all(self, host_states, spec_obj):
        resources = self.resources
        return [host for host in host_states
                if host.resource_shortfall(resources) is None]

    def filter_population(self, population, spec_obj):
        checks = []
        for rc, amount in self.resources.items():
            res = population.resource(rc)
            if res is None:
                return np.zeros(population.size, bool)
            checks.append((rc, amount,
                           _units_may_refuse(population, rc, res, amount),
                           bool(res.odd_steps)))
        # Which checks apply is decided over every row; with that, a
        # row's answer depends on its resource columns alone: kept from
        # one decision to the next with the same checks.
        checks = tuple(sorted(checks))
        return kept_masks.answer(population, ('placement', checks),
                                 functools.partial(_fits, population, checks))

    def rejection_reason(self, host_state, spec_obj):
        short = host_state.resource_shortfall(self.resources)
        return None if short is None else 'lack %s' % short


def _fits(population, checks, rows=None):
    """Whether the resources of ``checks`` ((rc, amount, whether to check
    min_unit and max_unit, whether to check step_size)) fit, for the rows
    of ``rows`` (an index array; None: every row)."""
    passed = True
    for rc, amount, units, steps in checks:
        res = population.resource(rc)
        free, min_unit, max_unit, step_size = (
            res.free, res.min_unit, res.max_unit, res.step_size)
        if rows is not None:
            free, min_unit, max_unit, step_size = (
                free[rows], min_unit[rows], max_unit[rows], step_size[rows])
        # free is -inf where the class is absent.
        fits = free >= amount
        if units:
            fits &= (min_unit <= amount) & (max_unit >= amount)
        if steps:
            fits &= np.remainder(amount, step_size) == 0
        passed = population_mod.both(passed, fits)
    return passed


def _units_may_refuse(population, rc, res, amount):
    """Whether some row's min_unit or max_unit of ``rc`` refuses
    ``amount``: ``res.min_unit.max() > amount or res.max_unit.min() <
    amount``, from bounds on both kept across decisions (widened by the
    rows changed since) while they settle it, from every row otherwise."""
    kept = getattr(population, '_unit_bounds', None)
    if kept is None:
        kept = population._unit_bounds = {}
    now = population.change_position()
    entry = kept.get(rc)
    if (entry is not None and entry[0] is population.hosts
            and entry[1] == population.size):
        rows = population.rows_changed_since(entry[2])
        if rows is not None:
            high, low = entry[3], entry[4]
            if rows:
                rows = np.asarray(rows, dtype=np.intp)
                high, low = (max(high, res.min_unit[rows].max()),
                             min(low, res.max_unit[rows].min()))
            if not (high > amount or low < amount):
                kept[rc] = (population.hosts, population.size, now, high,
                            low)
                return False
    high, low = res.min_unit.max(), res.max_unit.min()
    # A NaN bounds nothing: kept as no bound at all.
    kept[rc] = (population.hosts, population.size, now,
                np.inf if np.isnan(high) else high,
                -np.inf if np.isnan(low) else low)
    return bool(high > amount or low < amount)


class RequestedHostsStep(filters.BaseHostFilter):
    """Passes hosts not in the request's ``ignore_hosts`` and, when it
    forces hosts or nodes or names a ``requested_destination``, only
    those (names compared case-blind). A requested destination, unlike a
    forced host, still goes through the filters."""

    # Its answer for a host depends on that host alone (see
    # BaseHostFilter.incremental).
    incremental = True

    run_filter_once_per_request = True
    # A rebuild names the instance's host this way: kept on a rebuild.
    RUN_ON_REBUILD = True
    step_name = 'requested hosts'

    def __init__(self, spec_obj):
        self.ignore = self._lowered(_spec_list(spec_obj, 'ignore_hosts'))
        self.hosts = self._lowered(_spec_list(spec_obj, 'force_hosts'))
        self.nodes = self._lowered(_spec_list(spec_obj, 'force_nodes'))
        self.destination = self._requested(spec_obj, 'requested_host')
        self.destination_nodes = self._requested(spec_obj, 'requested_node')

    @classmethod
    def _requested(cls, spec_obj, method):
        requested = getattr(spec_obj, method, None)
        name = requested() if requested is not None else None
        return cls._lowered([name] if name else None)

    @staticmethod
    def _lowered(names):
        return {name.lower() for name in names} if names else set()

    @property
    def forced(self):
        return bool(self.hosts or self.nodes)

    def host_passes(self, host_state, spec_obj):
        return self.rejection_reason(host_state, spec_obj) is None

    def filter_population(self, population, spec_obj):
        passed = True
        if self.ignore:
            passed = ~population.codes_of('host_lower', _host_lower,
                                          self.ignore)
        if self.hosts:
            passed = passed & population.codes_of('host_lower', _host_lower,
                                                  self.hosts)
        if self.nodes:
            passed = passed & population.codes_of('node_lower', _node_lower,
                                                  self.nodes)
        if self.destination:
            passed = passed & population.codes_of('host_lower', _host_lower,
                                                  self.destination)
        if self.destination_nodes:
            passed = passed & population.codes_of('node_lower', _node_lower,
                                                  self.destination_nodes)
        return passed

    def rejection_reason(self, host_state, spec_obj):
        host = host_state.host.lower()
        if host in self.ignore:
            return 'ignored'
        if self.hosts and host not in self.hosts:
            return 'not a forced host'
        if self.nodes and host_state.nodename.lower() not in self.nodes:
            return 'not a forced node'
        if self.destination and host not in self.destination:
            return 'not the requested destination'
        if (self.destination_nodes and
                host_state.nodename.lower() not in self.destination_nodes):
            return 'not the requested destination node'
        return None


def _host_lower(host_state):
    return host_state.host.lower()


def _node_lower(host_state):
    return host_state.nodename.lower()


def _group(spec_obj):
    if not spec_obj.obj_attr_is_set('instance_group'):
        return None
    return spec_obj.instance_group


def claimed_instance(spec_obj, uuid):
    """The HostInstance of an instance of ``spec_obj`` just claimed."""
    image = (spec_obj.image if spec_obj.obj_attr_is_set('image')
             else None)
    props = (image.properties.to_dict()
             if image is not None and image.obj_attr_is_set('properties')
             else {})
    group = _group(spec_obj)
    return host_state_mod.HostInstance(
        uuid=uuid, project_id=spec_obj.project_id,
        vm_state=fields.VMState.BUILDING,
        task_state=fields.TaskState.SCHEDULING,
        flavor=spec_obj.flavor if spec_obj.obj_attr_is_set('flavor')
        else None,
        image_properties=props,
        group_uuids=frozenset([group.uuid]) if group is not None
        else frozenset())


def join_group(spec_obj, host_state, uuid):
    """Add the host chosen for ``uuid`` (and ``uuid``) to the request's
    server group, so its policy holds for the request's next instances,
    as Nova does."""
    group = _group(spec_obj)
    if group is None:
        return
    group.hosts = list(group.hosts or ()) + [host_state.host]
    if uuid not in (group.members or ()):
        group.members = list(group.members or ()) + [uuid]


def group_members_from_hosts(spec_obj, host_states):
    """Add to the request's server group the members, and the hosts of
    members, that the in-memory host states know and the group does not.

    The conductor read the group before asking; a request of the same
    group decided here since then claimed instances this view already
    holds, and the group policy must see them. Such a member may already
    be in ``members`` (it joins the group when its records are written)
    while its host is not in ``hosts`` (the group's hosts are its members'
    recorded hosts, written only after the claim): its host is added all
    the same. ``host_states`` may be a Population, whose index names the
    hosts to look at.
    """
    group = _group(spec_obj)
    if group is None:
        return
    if isinstance(host_states, population_mod.Population):
        host_states = host_states.hosts_at(
            host_states.index.group_rows(group.uuid))
    members = list(group.members or ())
    hosts = list(group.hosts or ())
    known, placed = set(members), set(hosts)
    for state in host_states:
        for instance in state.instances.values():
            if group.uuid not in instance.group_uuids:
                continue
            if instance.uuid not in known:
                known.add(instance.uuid)
                members.append(instance.uuid)
            if state.host not in placed:
                placed.add(state.host)
                hosts.append(state.host)
    if (len(members) != len(group.members or ())
            or len(hosts) != len(group.hosts or ())):
        group.members = members
        group.hosts = hosts


def _set_instance_uuid(spec_obj, uuid):
    """Point the request at the instance being placed, as Nova does for
    each instance of a multi-create (ServerGroupAntiAffinityFilter reads
    it), without marking the field changed."""
    if type(uuid) is str and isinstance(spec_obj, objects.RequestSpec):
        # Already a string: what the field's coercion (a uuid check under
        # a warnings filter, for each instance) would keep.
        spec_obj._obj_instance_uuid = uuid
        spec_obj._changed_fields.discard('instance_uuid')
        return
    spec_obj.instance_uuid = uuid
    reset = getattr(spec_obj, 'obj_reset_changes', None)
    if reset is not None:
        reset(['instance_uuid'])


class _Attempt:
    """The outcome of scheduling one instance."""

    __slots__ = ('filtered', 'candidates', 'chosen', 'position', 'lost',
                 'trace')

    def __init__(self, filtered, trace):
        self.filtered = filtered
        self.trace = trace
        self.candidates = []
        self.chosen = None
        self.position = None
        self.lost = []


class FilterScheduler:
    """Chooses and claims hosts for a request; see the module docstring.

    ``host_filters`` and ``host_weighers`` are instances, in order;
    ``rng`` (a ``random.Random``) makes random choices reproducible;
    ``whole_population`` (default) filters and weighs over a Population
    (see ``pipelines``), False host by host.
    """

    def __init__(self, host_filters, host_weighers, rng=None,
                 whole_population=True):
        self.filters = list(host_filters)
        self.weighers = list(host_weighers)
        self.rng = rng or random.Random()
        self.whole_population = whole_population

    @classmethod
    def from_config(cls, **kwargs):
        """Built from ``[filter_scheduler]``; raises
        SchedulerHostFilterNotFound or SchedulerWeigherNotFound."""
        opts = CONF.filter_scheduler
        return cls(filters.HostFilterHandler().load_enabled_filters(),
                   weighers.HostWeightHandler().load_weighers(
                       opts.weight_classes), **kwargs)

    def select_destinations(self, spec_obj, host_states, instance_uuids,
                            claimer, refresh_host=None,
                            return_alternates=True, prefilters=()):
        """One list of Selections per instance uuid, in order: the
        claimed host, then (with ``return_alternates``) up to
        ``max_attempts - 1`` alternates.

        ``host_states`` is a Population or an iterable of HostStates.
        ``refresh_host(host_state)`` reloads a host after a lost claim or
        a release. ``prefilters`` are the request's prefilter steps
        (``request_filter.process_reqspec``). Raises NoValidHost, having
        released this request's claims, when an instance cannot be placed.
        """
        start = time.perf_counter()
        resources = spec_obj.resources
        pipeline = pipelines.for_hosts(host_states, self.whole_population,
                                       len(instance_uuids))
        pool = pipeline.everyone()
        group_members_from_hosts(
            spec_obj, getattr(pipeline, 'population', pool))
        claimed = []
        results = []
        rebuild = utils.request_is_rebuild(spec_obj)
        make_selection = selections.SelectionMaker(resources)
        instance = None if rebuild else claimed_instance(spec_obj, None)
        try:
            for index, uuid in enumerate(instance_uuids):
                _set_instance_uuid(spec_obj, uuid)
                attempt = self._schedule_one(
                    pipeline, spec_obj, pool, index, uuid, resources,
                    claimer, refresh_host, prefilters,
                    instance and instance._replace(uuid=uuid))
                if attempt.chosen is None:
                    raise exception.NoValidHost(reason=self._explain(
                        pipeline.count(pool), attempt, index,
                        len(instance_uuids), spec_obj))
                if not rebuild:
                    claimed.append((uuid, attempt.chosen))
                results.append(self._selections(attempt, make_selection,
                                                return_alternates))
                pool = attempt.filtered
        except BaseException:
            self._release(claimed, claimer, refresh_host, pipeline)
            raise
        LOG.debug('Scheduled %d instances on %s in %.1f ms',
                  len(results), [host.host for _uuid, host in claimed],
                  (time.perf_counter() - start) * 1000)
        return results

    def _steps(self, spec_obj, resources, prefilters):
        steps = []
        requested = RequestedHostsStep(spec_obj)
        if (requested.ignore or requested.forced or requested.destination
                or requested.destination_nodes):
            steps.append(requested)
        steps.extend(prefilters)
        steps.append(PlacementStep(resources))
        # A rebuild names the instance's own host with force_hosts or
        # force_nodes (Nova's requested_destination): its filters still
        # run there.
        if not requested.forced or utils.request_is_rebuild(spec_obj):
            steps.extend(self.filters)
        return steps

    def _schedule_one(self, pipeline, spec_obj, pool, index, uuid,
                      resources, claimer, refresh_host, prefilters,
                      instance):
        steps = self._steps(spec_obj, resources, prefilters)
        trace = []
        filtered = pipeline.filter(steps, pool, spec_obj, index, trace)
        attempt = _Attempt(filtered, trace)
        if not pipeline.count(filtered):
            pipeline.log_timings(uuid, trace)
            return attempt
        attempt.candidates = pipeline.rank(self.weighers, filtered,
                                           spec_obj, self.rng)
        pipeline.log_timings(uuid, trace)
        self._claim_first(pipeline, attempt, uuid, spec_obj, resources,
                          claimer, refresh_host, steps, index, instance)
        return attempt

    def _claim_first(self, pipeline, attempt, uuid, spec_obj, resources,
                     claimer, refresh_host, steps, index, instance):
        if utils.request_is_rebuild(spec_obj):
            # The instance keeps its allocation where it is: the check
            # chooses without claiming, as Nova's does.
            attempt.chosen = attempt.candidates[0]
            attempt.position = 0
            return
        for position, host in enumerate(attempt.candidates):
            generation = self._claim_on(
                pipeline, attempt, host, uuid, spec_obj, resources, claimer,
                refresh_host, steps, index)
            if generation is None:
                continue
            host.consume(resources, generation, instance)
            pipeline.consumed(host)
            join_group(spec_obj, host, uuid)
            attempt.chosen = host
            attempt.position = position
            LOG.debug('Claimed %s for %s', host, uuid)
            return

    def _claim_on(self, pipeline, attempt, host, uuid, spec_obj, resources,
                  claimer, refresh_host, steps, index):
        """The provider's new generation once ``uuid`` is claimed on
        ``host``, or None (the claim was lost; try the next candidate).

        A claim lost to a concurrent change (another claim, a delete
        freeing room) refreshes the host; when the refresh saw the change
        (a new generation) and the host still passes every step, it is
        claimed again, up to CLAIM_RETRIES times: under delete churn the
        best host is often still the right one.
        """
        for tries in range(CLAIM_RETRIES + 1):
            seen = host.generation
            try:
                return claimer.claim(host, uuid, spec_obj, resources)
            except exception.ClaimConflict as exc:
                LOG.info('Claim for %s on %s lost to a concurrent change '
                         '(try %d): %s', uuid, host.host, tries + 1,
                         exc.format_message())
            if refresh_host is not None:
                refresh_host(host)
            pipeline.changed(host)
            if (refresh_host is None or host.generation == seen
                    or not self._still_passes(host, steps, spec_obj,
                                              index)):
                break
        attempt.lost.append(host)
        return None

    @staticmethod
    def _still_passes(host, steps, spec_obj, index):
        """Whether the refreshed ``host`` passes ``steps`` again, each
        asked host by host (the reference answer)."""
        return bool(filters.HostFilterHandler().get_filtered_objects(
            steps, [host], spec_obj, index))

    def _selections(self, attempt, make_selection, return_alternates):
        chosen = [attempt.chosen]
        if return_alternates:
            first = attempt.position + 1
            count = CONF.scheduler.max_attempts - 1
            chosen.extend(attempt.candidates[first:first + count])
        return [make_selection(host) for host in chosen]

    @staticmethod
    def _release(claimed, claimer, refresh_host, pipeline):
        """Give back this request's claims (best effort: a failure is
        logged, the instance's allocations are then the conductor's to
        remove)."""
        for uuid, host in claimed:
            try:
                claimer.release(uuid)
                if refresh_host is not None:
                    refresh_host(host)
                pipeline.changed(host)
            except Exception:
                LOG.exception('Releasing the claim of %s on %s failed',
                              uuid, host.host)

    @staticmethod
    def _explain(known, attempt, index, count, spec_obj):
        """The NoValidHost reason: each step's hosts before -> after."""
        if not known and index == 0:
            text = 'No compute nodes are known to the scheduler.'
        else:
            parts = [step.describe(spec_obj) for step in attempt.trace]
            if attempt.lost:
                lost = len(attempt.lost)
                parts.append('claims: %d -> 0 (%d changed by concurrent '
                             'claims)' % (lost, lost))
            text = '; '.join(parts)
        if count > 1:
            text = 'Instance %d of %d: %s' % (index + 1, count, text)
        return text
