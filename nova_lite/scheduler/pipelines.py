"""The two ways the scheduling core filters and orders hosts.

``ReferencePipeline`` runs each filter host by host (``filter_all``) and
each weigher through ``HostWeightHandler``: Nova's plug-in contract as
written, and the reference. ``PopulationPipeline`` runs the same steps
over a ``population.Population``: whole-population twins where filters
and weighers have them (the built-ins do), per-host calls where they do
not. Both give the same hosts in the same order; the property test
``tests/unit/scheduler/test_fast_path_property.py`` holds them to it.

A pipeline works on a *pool*: the hosts still in play for a request (a
list, or a mask of rows). The scheduling core starts from
``everyone()`` and, for each instance, passes on the pool the previous
instance's filters left.
"""

import logging as std_logging

import numpy as np
from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite.scheduler import fast_path
from nova_lite.scheduler import filters
from nova_lite.scheduler import increments
from nova_lite.scheduler import population as population_mod
from nova_lite.scheduler import weight_cache
from nova_lite.scheduler import weighers

LOG = logging.getLogger(__name__)


def _log_timings(uuid, trace, timings):
    """One debug line per instance: each step's and weigher's time."""
    if not LOG.isEnabledFor(std_logging.DEBUG):
        return
    steps = ', '.join('%s %d->%d %.3fms%s' % (
        step.name, step.count_in(), step.count_out(), step.seconds * 1000,
        '' if getattr(step, 'fast', True) else ' (per host)')
        for step in trace)
    weighed = ', '.join('%s %.3fms%s' % (
        name, seconds * 1000, '' if fast else ' (per host)')
        for name, seconds, fast in timings)
    LOG.debug('Scheduling %s: filters: %s; weighers: %s', uuid, steps,
              weighed or 'none')


def _ordered_candidates(weighed_objs, rng):
    """Host order after ``shuffle_best_same_weighed_hosts`` and the
    ``host_subset_size`` pick (per-host path)."""
    opts = CONF.filter_scheduler
    if opts.shuffle_best_same_weighed_hosts and weighed_objs:
        best = weighed_objs[0].weight
        ties = next((i for i, w in enumerate(weighed_objs)
                     if w.weight != best), len(weighed_objs))
        head = weighed_objs[:ties]
        rng.shuffle(head)
        weighed_objs[:ties] = head
    ordered = [w.obj for w in weighed_objs]
    subset = min(opts.host_subset_size, len(ordered))
    if subset > 1:
        # Several schedulers deciding on the same view would all pick
        # the very best host; a random pick among the best few makes
        # their claims collide less.
        ordered.insert(0, ordered.pop(rng.randrange(subset)))
    return ordered


class ReferencePipeline:
    """Host by host, over a list of host states."""

    def __init__(self, host_states):
        self.hosts = list(host_states)
        self.filter_handler = filters.HostFilterHandler()
        self.weight_handler = weighers.HostWeightHandler()

    def everyone(self):
        return self.hosts

    @staticmethod
    def count(pool):
        return len(pool)

    def filter(self, steps, pool, spec_obj, index, trace):
        return self.filter_handler.get_filtered_objects(
            steps, pool, spec_obj, index, trace)

    def rank(self, weigher_objs, pool, spec_obj, rng):
        """The hosts of ``pool`` best first (after shuffle and subset)."""
        weighed = self.weight_handler.get_weighed_objects(
            weigher_objs, pool, spec_obj)
        return _ordered_candidates(weighed, rng)

    def consumed(self, host_state):
        """The core claimed on ``host_state``."""

    def changed(self, host_state):
        """The core changed ``host_state`` otherwise (refreshed it)."""

    def log_timings(self, uuid, trace):
        """The handlers logged each filter and weigher as they ran."""


class PopulationPipeline:
    """Whole-population, over a Population (built from a list of host
    states when given one).

    The instances after the first of a request are evaluated again only
    on the hosts claimed since the previous one, when claims are all
    that changed (``increments``); ``instances`` is how many the request
    places.
    """

    def __init__(self, host_states, instances=1):
        if not isinstance(host_states, population_mod.Population):
            host_states = population_mod.Population(host_states)
        self.population = host_states
        # Compacting renumbers rows: only here, before any pool exists.
        self.population.sync(compact=True)
        self.instances = instances
        self._timings = []
        # What the previous instance's filters kept, and its weights.
        self._kept = None
        self._reweigher = None
        # Rows claimed on since; whether anything else changed a host.
        self._claimed = []
        self._stale = False
        self._index = 0
        self._incremental = False

    def everyone(self):
        return self.population.mask().copy()

    @staticmethod
    def count(pool):
        # count_nonzero reads the bools as they are; sum() widens each to
        # an integer first, several times slower on a large fleet.
        return int(np.count_nonzero(pool))

    def filter(self, steps, pool, spec_obj, index, trace):
        population = self.population
        population.sync()
        size = population.size
        incremental = False
        if len(pool) < size:
            # Rows added since the pool was taken are not in it.
            pool = np.concatenate([pool, np.zeros(size - len(pool), bool)])
        else:
            incremental = (index > 0 and pool is self._kept
                           and not self._stale)
        # Rows whose host was dropped since then leave it.
        pool = pool & population.mask()
        self._index = index
        self._incremental = incremental
        if incremental:
            kept = increments.run_filters(steps, population, pool,
                                          spec_obj, index, trace,
                                          self._claimed)
        else:
            kept = fast_path.run_filters(steps, population, pool, spec_obj,
                                         index, trace)
        self._kept = kept
        return kept

    def rank(self, weigher_objs, pool, spec_obj, rng):
        """The ``fast_path.Ranking`` of ``pool``, after shuffle and
        subset."""
        opts = CONF.filter_scheduler
        ranked = self._ranking(weigher_objs, pool, spec_obj)
        if opts.shuffle_best_same_weighed_hosts and len(ranked):
            ranked.shuffle_ties(rng)
        subset = min(opts.host_subset_size, len(ranked))
        if subset > 1:
            ranked.pick_from(subset, rng)
        return ranked

    def _ranking(self, weigher_objs, pool, spec_obj):
        """The ranking of ``pool``: from the Reweigher's weights, the
        claimed hosts weighed again, when it has them; else for a later
        instance to come a new Reweigher's, and for the last (or only)
        instance weight_cache's (from the kept weights when it can)."""
        population, timings = self.population, self._timings
        rows = weights = None
        handed_over = True
        if self._incremental and self._reweigher is not None:
            rows = pool.nonzero()[0]
            weights = self._reweigher.reweigh(
                weigher_objs, population, rows, spec_obj, timings, pool,
                self._claimed)
        self._claimed = []
        self._stale = False
        if weights is None:
            del timings[:]
            if self._index + 1 >= self.instances:
                self._reweigher = None
                return weight_cache.rank(weigher_objs, population, pool,
                                         spec_obj, timings)
            if rows is None:
                rows = pool.nonzero()[0]
            weights, self._reweigher = increments.Reweigher.weigh(
                weigher_objs, population, rows, spec_obj, timings, pool)
            handed_over = self._reweigher is None
        return fast_path.RankedHosts(population, rows, weights, handed_over)

    def consumed(self, host_state):
        """The core claimed on ``host_state`` (``HostState.consume``)."""
        self.population.mark_changed(host_state)
        row = self.population.row_of(host_state)
        if row is None:
            self._stale = True
        else:
            self._claimed.append(row)

    def changed(self, host_state):
        self.population.mark_changed(host_state)
        self._stale = True

    def log_timings(self, uuid, trace):
        """One debug line for the instance just scheduled."""
        timings, self._timings = self._timings, []
        _log_timings(uuid, trace, timings)


def for_hosts(host_states, whole_population, instances=1):
    """The pipeline for ``host_states`` (a Population or host states)
    placing ``instances`` instances."""
    if whole_population:
        return PopulationPipeline(host_states, instances)
    if isinstance(host_states, population_mod.Population):
        host_states = list(host_states)
    return ReferencePipeline(host_states)

