"""The next instance of a request, asked again only where claims changed.

For a request of several instances Nova runs the filters and weighers
again for each instance, over the hosts the previous one kept, seeing
the previous instances' claims. A claim changes one host: a filter or
weigher that declares ``incremental`` (its answer for a host depends on
that host and on what stays fixed for the request) can only answer
differently for that host. So for the next instance:

* ``run_filters`` asks each such filter about the claimed hosts alone;
  the others (the server group filters, plug-ins that do not declare it)
  are run over every host still in play, in their place in the order, so
  every step's hosts in and out are exactly those of a full run;
* ``Reweigher`` keeps each weigher's clamped raw weights, their extremes
  and what it added to each host's weight; an incremental weigher
  re-weighs the claimed hosts alone and normalises again over every host
  only when the lowest or highest weight moved (the claimed host often
  held it), the others weigh every host again. The combined weights are
  summed in the weighers' order, so they are bit for bit those of a full
  run.

Anything else that changed a host (a refresh after a lost claim, a
release) makes the pipeline run the next instance in full.
"""

import math
import time

import numpy as np

from nova_lite.scheduler import fast_path
from nova_lite.scheduler import utils
from nova_lite.scheduler import weighers
from nova_lite.scheduler.weighers import rules


def _local(obj, spec_obj):
    """Whether ``obj`` (a filter or weigher) may be asked again about the
    changed hosts alone for ``spec_obj``: its ``incremental`` is true, or
    a method saying so for the request."""
    incremental = getattr(obj, 'incremental', False)
    if not incremental or not fast_path.trusted(obj, obj.incremental_twins):
        return False
    return incremental(spec_obj) if callable(incremental) else True


def run_filters(steps, population, pool, spec_obj, index, trace, changed):
    """``fast_path.run_filters`` for the ``index``-th instance (> 0) of a
    request, when ``pool`` is what the previous instance's filters kept
    and only the hosts of the rows ``changed`` changed since (claims)."""
    mask = pool
    for step in utils.steps_for_request(steps, spec_obj):
        if not step.run_filter_for_index(index):
            continue
        start = time.perf_counter()
        if _local(step, spec_obj):
            kept = mask
            failed = [row for row in changed if mask[row] and not list(
                step.filter_all([population.hosts[row]], spec_obj))]
            if failed:
                kept = mask.copy()
                kept[failed] = False
            fast = fast_path.trusted(step, step.population_twins)
        else:
            kept, fast = fast_path.run_step(step, population, mask,
                                            spec_obj)
        trace.append(fast_path.MaskStep(step, population, mask, kept,
                                        time.perf_counter() - start, fast))
        mask = kept
        if not mask.any():
            break
    return mask


class Reweigher:
    """The weights of one instance's rows (``rows``, the base), kept so
    that the request's next instance, whose rows are among them, is
    weighed again only where it must be (module docstring).

    Every array is over the base rows; ``live`` marks those in play.
    """

    def __init__(self, weigher_objs, rows, parts, total):
        self.weighers = list(weigher_objs)
        # Per weigher, whether it is incremental for the request (the
        # same for each of its instances): found on the first reweigh.
        self._local = None
        self.rows = rows
        # Every base row in play (never written to).
        self.live = self._everyone = np.ones(len(rows), bool)
        self.parts = parts
        self.total = total

    @classmethod
    def weigh(cls, weigher_objs, population, rows, spec_obj, timings,
              among):
        """(``fast_path.weigh``'s weights of ``rows``, a Reweigher for
        the next instance or None when there is nothing to keep)."""
        parts = []
        total = fast_path.weigh(weigher_objs, population, rows, spec_obj,
                                timings, among=among, parts=parts)
        if len(parts) != len(weigher_objs):
            return total, None
        return total, cls(weigher_objs, rows, parts, total)

    def reweigh(self, weigher_objs, population, rows, spec_obj, timings,
                among, changed):
        """The weights of ``rows`` (among the base rows) as
        ``fast_path.weigh`` gives them, when only the hosts of the rows
        ``changed`` changed since the last weighing; None when they are
        not to be had this way (the caller weighs in full)."""
        if list(weigher_objs) != self.weighers or len(rows) <= 1:
            return None
        live = self._in_play(among, rows)
        everyone = live is self._everyone
        if not everyone and int(np.count_nonzero(live)) != len(rows):
            return None
        touched = self._positions(changed, live)
        if touched is None:
            return None
        gone = [] if everyone else np.flatnonzero(self.live & ~live).tolist()
        hosts = population.hosts_at(self.rows[touched].tolist())
        if self._local is None:
            self._local = [_local(weigher, spec_obj)
                           for weigher in self.weighers]
        resum = False
        for position, weigher in enumerate(self.weighers):
            start = time.perf_counter()
            if self._local[position]:
                fresh = self._local_part(weigher, hosts, spec_obj,
                                         self.parts[position], live,
                                         touched, gone)
                fast = True
            else:
                fresh, fast = self._whole_part(
                    weigher, population, rows, among, spec_obj, live,
                    position)
            timings.append((type(weigher).__name__,
                            time.perf_counter() - start, fast))
            if fresh is None:
                return None
            if fresh is not True:
                self.parts[position] = fresh
                resum = True
        self.live = live
        self._sum(resum, touched)
        # The caller's to write to: a copy either way.
        return self.total.copy() if everyone else self.total[live]

    def _in_play(self, among, rows):
        """``among[self.rows]``, the base rows in play (``among``, a
        mask over the population, marks ``rows``): the all-true mask,
        without gathering, when ``rows`` are the base rows themselves, as
        they are while every host the first instance weighed stays in
        play."""
        if len(rows) == len(self.rows) and np.array_equal(rows, self.rows):
            return self._everyone
        return among[self.rows]

    def _positions(self, changed, live):
        """Base positions of the ``changed`` rows in play, in row order
        (a list); None when one is not a base row."""
        rows = sorted(set(changed))
        found = np.searchsorted(self.rows, rows).tolist()
        positions = []
        for row, position in zip(rows, found, strict=True):
            if position >= len(self.rows) or self.rows[position] != row:
                return None
            if live[position]:
                positions.append(position)
        return positions

    def _whole_part(self, weigher, population, rows, among, spec_obj, live,
                    position):
        """A weigher asked about every host in play: (its new part over
        the base rows, or True when it adds nothing now as before;
        whether its twin ran)."""
        def total_so_far():
            total = np.zeros(len(self.rows))
            for part in self.parts[:position]:
                if part.added is not None:
                    total += part.added
            return total[live]

        part, fast = fast_path.weigh_part(weigher, population, rows, among,
                                          spec_obj, total_so_far)
        if part.added is None and self.parts[position].added is None:
            return True, fast
        if part.added is not None:
            added = np.zeros(len(self.rows))
            added[live] = part.added
            part.added = added
        # Not asked about single hosts: its raw weights and multipliers
        # (of these rows, not the base) are not kept.
        part.raw = part.multiplier = None
        return part, fast

    def _local_part(self, weigher, hosts, spec_obj, part, live, touched,
                    gone):
        """An incremental weigher: its part, True when only the
        ``touched`` positions changed (updated in place), or None when
        it cannot say.

        Usually one host changed: its numbers are worked out as Python
        floats, which round exactly as numpy's float64 arrays do.
        """
        if part.fixed:
            return self._check_fixed(weigher, hosts, spec_obj, part)
        if part.raw is None:
            return None
        values = _raw_of(weigher, hosts, spec_obj)
        raw = part.raw
        item = raw.item
        before = [item(position) for position in touched + gone]
        for position, value in zip(touched, values, strict=True):
            raw[position] = value
        found = _moved_extremes(part, before, values)
        if found is None:
            # An extreme left with the last host holding it (or a NaN
            # came): look again, counting the hosts that hold each.
            # (Gathering first is about three times faster than numpy's
            # masked reductions, min(where=...).)
            in_play = raw[live]
            lowest, highest = in_play.min(), in_play.max()
            found = (lowest, highest,
                     (int(np.count_nonzero(in_play == lowest)),
                      int(np.count_nonzero(in_play == highest))))
        lowest, highest, part.counts = found
        old = fast_path.bounds(weigher, part.lowest, part.highest)
        new = fast_path.bounds(weigher, lowest, highest)
        part.lowest, part.highest = lowest, highest
        if new == old:
            if part.added is not None and old[0] != old[1]:
                self._update_added(part, touched, new)
            return True
        return self._renormalized(part, live, new)

    @staticmethod
    def _check_fixed(weigher, hosts, spec_obj, part):
        # One number for every host: still so once the changed hosts are
        # weighed again, or the weigher must be asked about every host.
        if part.value is None or not hosts:
            return True
        values = _raw_of(weigher, hosts, spec_obj)
        return True if all(value == part.value for value in values) else None

    @staticmethod
    def _update_added(part, touched, bounds):
        low, high = bounds
        span = float(high - low)
        multiplier = part.multiplier
        raw, added = part.raw, part.added
        one = fast_path.ndim(multiplier) == 0
        for position in touched:
            scale = multiplier if one else multiplier.item(position)
            added[position] = (raw.item(position) - low) / span * scale

    @staticmethod
    def _renormalized(part, live, bounds):
        """``part`` normalised again over every base position (only the
        ``live`` ones count: the others hold the finite numbers of hosts
        that were in play)."""
        low, high = bounds
        multiplier = part.multiplier
        scalar = fast_path.finite_number(multiplier)
        with np.errstate(all='ignore'):
            norm = fast_path.normalized(part.raw, low, high)
            if norm is None:
                if scalar:
                    part.added = None
                    return part
                norm = np.zeros(len(live))
            fast_path.scale(norm, multiplier)
        part.added = norm
        return part

    def _sum(self, resum, touched):
        """The combined weights again, in the weighers' order: of every
        position when a weigher's changed everywhere, else of
        ``touched``."""
        added = [part.added for part in self.parts
                 if part.added is not None]
        if resum:
            total = np.zeros(len(self.rows))
            for values in added:
                np.add(total, values, out=total)
            self.total = total
            return
        for position in touched:
            weight = 0.0
            for values in added:
                weight = weight + values.item(position)
            self.total[position] = weight


def _moved_extremes(part, before, values):
    """(lowest, highest, their counts) of ``part``'s raw weights in play
    once the numbers ``before`` left play and ``values`` joined it, from
    the counts of the hosts holding the extremes; None when they are not
    known, or an extreme is held by no host any more (or a number is
    not finite)."""
    lowest, highest, counts = part.lowest, part.highest, part.counts
    if (counts is None or not math.isfinite(lowest)
            or not math.isfinite(highest)
            or not all(math.isfinite(value) for value in values)):
        return None
    at_low, at_high = counts
    for value in before:
        at_low -= value == lowest
        at_high -= value == highest
    for value in values:
        if value < lowest:
            lowest, at_low = value, 1
        elif value == lowest:
            at_low += 1
        if value > highest:
            highest, at_high = value, 1
        elif value == highest:
            at_high += 1
    if at_low <= 0 or at_high <= 0:
        return None
    return lowest, highest, (at_low, at_high)


_BASE = weighers.BaseHostWeigher
_PER_HOST = {}


def _per_host(weigher):
    """Whether ``weigher`` weighs a list as the base class does, one
    ``_weigh_object`` call per host (which may then be called alone)."""
    cls = type(weigher)
    found = _PER_HOST.get(cls)
    if found is None:
        found = _PER_HOST[cls] = (
            cls.weigh_objects is _BASE.weigh_objects
            and cls.weight_objects is _BASE.weight_objects)
    return found


def _weighs_zero(weigher, spec_obj):
    """Whether ``weigher`` is an InputsWeigher weighing as that class
    does (``weigh_objects`` and ``weight_objects`` its own) whose
    ``parse_request`` says it weighs every host 0.0 for ``spec_obj``:
    its hosts need not be asked one by one (the soft-affinity and
    metrics weighers of a request without a group or a setting)."""
    cls = type(weigher)
    found = _INPUTS.get(cls)
    if found is None:
        found = _INPUTS[cls] = (
            issubclass(cls, rules.InputsWeigher)
            and cls.weigh_objects is _BASE.weigh_objects
            and cls.weight_objects is rules.InputsWeigher.weight_objects)
    return found and weigher.parse_request(spec_obj) is None


_INPUTS = {}


def _raw_of(weigher, hosts, spec_obj):
    """The clamped raw weights (floats) of ``hosts``, asked host by
    host."""
    if not hosts:
        return []
    if _weighs_zero(weigher, spec_obj):
        raw = [0.0] * len(hosts)
    elif _per_host(weigher):
        weigh = weigher._weigh_object
        raw = [float(weigh(host, spec_obj)) for host in hosts]
    else:
        raw = [float(value) for value in weigher.weigh_objects(
            [weighers.WeighedHost(host, 0.0) for host in hosts], spec_obj)]
    if weigher.minval is not None:
        raw = [max(value, weigher.minval) for value in raw]
    if weigher.maxval is not None:
        raw = [min(value, weigher.maxval) for value in raw]
    return raw
