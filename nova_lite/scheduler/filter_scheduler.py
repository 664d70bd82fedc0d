"""The scheduling core: (request, host states) -> claimed selections.

For each instance of a request, in order:

1. the requested-hosts step (``ignore_hosts``, ``force_hosts``,
   ``force_nodes``), when the request has any;
2. the placement step: hosts where the instance's resources fit, as
   placement would check them;
3. the enabled filters, in order (skipped for forced hosts, as in Nova);
4. the weighers, then ``shuffle_best_same_weighed_hosts`` and a random
   pick among the best ``host_subset_size``;
5. a claim on the first candidate; a ClaimConflict (another scheduler got
   there first) refreshes that host and moves to the next candidate.

The claimed host's state is consumed, so the next instance sees it, and
the next instance starts from the hosts this one kept. Alternates are the
next ``max_attempts - 1`` candidates, not claimed. If an instance cannot
be placed, the claims already made for the request are released and
NoValidHost says what each step did:

    placement (VCPU=1, MEMORY_MB=512): 100 -> 40 (60 lack MEMORY_MB);
    ComputeFilter: 40 -> 30 (10 down); RamFilter: 30 -> 0 (30 need ...)

Nothing here reads the database or the bus: claims go through a
``claims.Claimer`` and refreshes through a callback.
"""

import random
import time

from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite import objects
from nova_lite.scheduler import filters
from nova_lite.scheduler import weighers

LOG = logging.getLogger(__name__)


def _spec_list(spec_obj, name):
    if not spec_obj.obj_attr_is_set(name):
        return None
    return getattr(spec_obj, name) or None


class PlacementStep(filters.BaseHostFilter):
    """Passes hosts whose provider can take ``resources`` now: every
    class has inventory, respects min_unit/max_unit/step_size and fits
    (total - reserved) * allocation_ratio after current usage."""

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

    def rejection_reason(self, host_state, spec_obj):
        short = host_state.resource_shortfall(self.resources)
        return None if short is None else 'lack %s' % short


class RequestedHostsStep(filters.BaseHostFilter):
    """Passes hosts not in the request's ``ignore_hosts`` and, when it
    forces hosts or nodes, only those (names compared case-blind)."""

    run_filter_once_per_request = True
    step_name = 'requested hosts'

    def __init__(self, spec_obj):
        self.ignore = self._lowered(_spec_list(spec_obj, 'ignore_hosts'))
        self.hosts = self._lowered(_spec_list(spec_obj, 'force_hosts'))
        self.nodes = self._lowered(_spec_list(spec_obj, 'force_nodes'))

    @staticmethod
    def _lowered(names):
        return {name.lower() for name in names} if names else set()

    @property
    def forced(self):
        return bool(self.hosts or self.nodes)

    def host_passes(self, host_state, spec_obj):
        return self.rejection_reason(host_state, spec_obj) is None

    def rejection_reason(self, host_state, spec_obj):
        host = host_state.host.lower()
        if host in self.ignore:
            return 'ignored'
        if self.hosts and host not in self.hosts:
            return 'not a forced host'
        if self.nodes and host_state.nodename.lower() not in self.nodes:
            return 'not a forced node'
        return None


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
    ``rng`` (a ``random.Random``) makes random choices reproducible.
    """

    def __init__(self, host_filters, host_weighers, rng=None):
        self.filters = list(host_filters)
        self.weighers = list(host_weighers)
        self.filter_handler = filters.HostFilterHandler()
        self.weight_handler = weighers.HostWeightHandler()
        self.rng = rng or random.Random()

    @classmethod
    def from_config(cls):
        """Built from ``[filter_scheduler]``; raises
        SchedulerHostFilterNotFound or SchedulerWeigherNotFound."""
        opts = CONF.filter_scheduler
        return cls(filters.HostFilterHandler().load_enabled_filters(),
                   weighers.HostWeightHandler().load_weighers(
                       opts.weight_classes))

    def select_destinations(self, spec_obj, host_states, instance_uuids,
                            claimer, refresh_host=None,
                            return_alternates=True):
        """One list of Selections per instance uuid, in order: the
        claimed host, then (with ``return_alternates``) up to
        ``max_attempts - 1`` alternates.

        ``refresh_host(host_state)`` reloads a host after a lost claim or
        a release. Raises NoValidHost, having released this request's
        claims, when an instance cannot be placed.
        """
        start = time.perf_counter()
        resources = spec_obj.resources
        hosts = list(host_states)
        claimed = []
        results = []
        try:
            for index, uuid in enumerate(instance_uuids):
                attempt = self._schedule_one(spec_obj, hosts, index, uuid,
                                             resources, claimer,
                                             refresh_host)
                if attempt.chosen is None:
                    raise exception.NoValidHost(reason=self._explain(
                        spec_obj, hosts, attempt, index,
                        len(instance_uuids)))
                claimed.append((uuid, attempt.chosen))
                results.append(self._selections(attempt, resources,
                                                return_alternates))
                hosts = attempt.filtered
        except BaseException:
            self._release(claimed, claimer, refresh_host)
            raise
        LOG.debug('Scheduled %d instances on %s in %.1f ms',
                  len(results), [host.host for _uuid, host in claimed],
                  (time.perf_counter() - start) * 1000)
        return results

    def _schedule_one(self, spec_obj, hosts, index, uuid, resources,
                      claimer, refresh_host):
        steps = []
        requested = RequestedHostsStep(spec_obj)
        if requested.ignore or requested.forced:
            steps.append(requested)
        steps.append(PlacementStep(resources))
        if not requested.forced:
            steps.extend(self.filters)
        trace = []
        filtered = self.filter_handler.get_filtered_objects(
            steps, hosts, spec_obj, index, trace)
        attempt = _Attempt(filtered, trace)
        if not filtered:
            return attempt
        attempt.candidates = self._sorted_candidates(filtered, spec_obj)
        self._claim_first(attempt, uuid, spec_obj, resources, claimer,
                          refresh_host)
        return attempt

    def _sorted_candidates(self, hosts, spec_obj):
        """``hosts`` best first, after shuffle and subset choice."""
        opts = CONF.filter_scheduler
        weighed = self.weight_handler.get_weighed_objects(
            self.weighers, hosts, spec_obj)
        if opts.shuffle_best_same_weighed_hosts and weighed:
            best = weighed[0].weight
            ties = next((i for i, w in enumerate(weighed)
                         if w.weight != best), len(weighed))
            head = weighed[:ties]
            self.rng.shuffle(head)
            weighed[:ties] = head
        ordered = [w.obj for w in weighed]
        subset = min(opts.host_subset_size, len(ordered))
        if subset > 1:
            # Several schedulers deciding on the same view would all pick
            # the very best host; a random pick among the best few makes
            # their claims collide less.
            ordered.insert(0, ordered.pop(self.rng.randrange(subset)))
        return ordered

    def _claim_first(self, attempt, uuid, spec_obj, resources, claimer,
                     refresh_host):
        for position, host in enumerate(attempt.candidates):
            try:
                generation = claimer.claim(host, uuid, spec_obj, resources)
            except exception.ClaimConflict as exc:
                LOG.info('Claim for %s on %s lost to a concurrent change, '
                         'trying the next host: %s', uuid, host.host,
                         exc.format_message())
                attempt.lost.append(host)
                if refresh_host is not None:
                    refresh_host(host)
                continue
            host.consume(resources, generation)
            attempt.chosen = host
            attempt.position = position
            LOG.debug('Claimed %s for %s', host, uuid)
            return

    def _selections(self, attempt, resources, return_alternates):
        chosen = [attempt.chosen]
        if return_alternates:
            first = attempt.position + 1
            count = CONF.scheduler.max_attempts - 1
            chosen.extend(attempt.candidates[first:first + count])
        return [objects.Selection.from_host_state(host, resources)
                for host in chosen]

    def _release(self, claimed, claimer, refresh_host):
        """Give back this request's claims (best effort: a failure is
        logged, the instance's allocations are then the conductor's to
        remove)."""
        for uuid, host in claimed:
            try:
                claimer.release(uuid)
                if refresh_host is not None:
                    refresh_host(host)
            except Exception:
                LOG.exception('Releasing the claim of %s on %s failed',
                              uuid, host.host)

    @staticmethod
    def _explain(spec_obj, hosts, attempt, index, count):
        """The NoValidHost reason: each step's hosts before -> after."""
        if not hosts and index == 0:
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
