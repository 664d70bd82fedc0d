"""The whole-population pipeline: filters as masks, weighers as arrays.

It computes what ``HostFilterHandler.get_filtered_objects`` and
``HostWeightHandler.get_weighed_objects`` compute, with the same
arithmetic in the same order, over a ``population.Population``:

* each filter step narrows a boolean mask of candidate rows, through
  its ``filter_population`` when it has a trusted one, else through its
  ``filter_all`` on the candidate hosts (custom plug-ins);
* each weigher gives raw numbers for the candidates (``weigh_population``
  or ``weigh_objects``), which are clamped, normalised, multiplied and
  summed as the per-host handler does;
* ``RankedHosts`` orders the candidates heaviest first, stable on the
  rows' order, lazily: usually only the first few are ever looked at.

A filter's or weigher's fast method is trusted only when the class that
defines it is at least as derived as the classes defining its per-host
twins (``population_twins``): a subclass changing the per-host rule
without the fast one is run host by host.

The rows in play are passed to a fast method explicitly, as its
``among`` argument (a bool mask over the population's rows); a fast
method written before that argument existed is called without it.
"""

import inspect
import math
import time

import numpy as np

from nova_lite.scheduler import filters
from nova_lite.scheduler import utils
from nova_lite.scheduler import weighers

_TRUST = {}
# A filter's summary of rejected hosts and its whole-population twin.
_SUMMARY_TWINS = (('summarize_rejections', 'summarize_population'),)
_TAKES_AMONG = {}


def _mro_index(cls, name):
    for index, klass in enumerate(cls.__mro__):
        if name in klass.__dict__:
            return index
    return None


# What np.ndim answers 0 for without asking it (it costs a dispatch,
# several times per weigher and decision).
_SCALARS = (float, int, np.generic)


def ndim(value):
    """np.ndim(value), without its dispatch for the common kinds."""
    if isinstance(value, _SCALARS):
        return 0
    if type(value) is np.ndarray:
        # A column: its own ndim, without np.ndim's dispatch.
        return value.ndim
    return np.ndim(value)


def finite_number(value):
    """Whether ``value`` is one finite number. math.isfinite answers a
    Python or numpy number (or 0-d array) several times faster than the
    np.isfinite ufunc, and the same; anything else is asked of numpy."""
    if ndim(value) != 0:
        return False
    try:
        return math.isfinite(value)
    except (TypeError, OverflowError):
        return bool(np.isfinite(value))


def trusted(obj, twins):
    """Whether each fast method of ``twins`` ((per-host name, fast
    name) pairs) may stand for its per-host twin on ``obj``."""
    cls = type(obj)
    key = (cls, twins)
    found = _TRUST.get(key)
    if found is None:
        found = True
        for slow, fast in twins:
            fast_at = _mro_index(cls, fast)
            slow_at = _mro_index(cls, slow)
            if fast_at is None or (slow_at is not None
                                   and fast_at > slow_at):
                found = False
        _TRUST[key] = found
    return found


def _call_fast(method, population, spec_obj, among):
    """``method(population, spec_obj, among=among)``, or without
    ``among`` for a fast method that does not take it."""
    func = getattr(method, '__func__', method)
    takes = _TAKES_AMONG.get(func)
    if takes is None:
        try:
            takes = 'among' in inspect.signature(method).parameters
        except (TypeError, ValueError):
            takes = False
        _TAKES_AMONG[func] = takes
    if takes:
        return method(population, spec_obj, among=among)
    return method(population, spec_obj)


class MaskStep(filters.FilterStep):
    """A FilterStep recorded as two masks over a population's rows;
    the rejected hosts are listed only when a NoValidHost is explained.
    ``fast`` tells whether the filter's whole-population twin ran."""

    __slots__ = ('population', 'fast')

    def __init__(self, filter_obj, population, mask_in, mask_out, seconds,
                 fast):
        super().__init__(filter_obj, mask_in, mask_out, seconds)
        self.population = population
        self.fast = fast

    def count_in(self):
        return int(np.count_nonzero(self.hosts_in))

    def count_out(self):
        return int(np.count_nonzero(self.hosts_out))

    def rejected(self):
        rows = np.flatnonzero(self.hosts_in & ~self.hosts_out)
        return self.population.hosts_at(rows)

    def summarize(self, spec_obj):
        # A NoValidHost may reject most of a large fleet: a filter whose
        # rule partitions the hosts summarises them a key at a time.
        flt = self.filter_obj
        if self.fast and trusted(flt, _SUMMARY_TWINS):
            summary = flt.summarize_population(
                self.population, self.hosts_in & ~self.hosts_out, spec_obj)
            if summary is not None:
                return summary
        return super().summarize(spec_obj)


def _per_host_filter(filter_obj, population, mask, spec_obj):
    rows = np.flatnonzero(mask)
    hosts = population.hosts_at(rows)
    kept = {id(host) for host in filter_obj.filter_all(hosts, spec_obj)}
    passed = np.zeros_like(mask)
    passed[[row for row, host in zip(rows, hosts, strict=True)
            if id(host) in kept]] = True
    return passed


def run_step(step, population, mask, spec_obj):
    """(the rows of ``mask`` that pass ``step``, whether its
    whole-population twin answered)."""
    fast = trusted(step, step.population_twins)
    passed = None
    if fast:
        passed = _call_fast(step.filter_population, population, spec_obj,
                            mask)
    if passed is None:
        return _per_host_filter(step, population, mask, spec_obj), False
    if passed is True:
        return mask, True
    return mask & passed, True


def run_filters(steps, population, mask, spec_obj, index, trace):
    """The mask of the rows of ``mask`` that pass every step of
    ``steps`` run for the ``index``-th instance; a MaskStep per step run
    is appended to ``trace``. Stops at the first step leaving no row."""
    for step in utils.steps_for_request(steps, spec_obj):
        if not step.run_filter_for_index(index):
            continue
        start = time.perf_counter()
        kept, fast = run_step(step, population, mask, spec_obj)
        trace.append(MaskStep(step, population, mask, kept,
                              time.perf_counter() - start, fast))
        mask = kept
        if not mask.any():
            break
    return mask


def _raw_weights(weigher, population, rows, among, spec_obj, total):
    """(raw weights: of every population row, or of ``rows`` only, or
    one float for all; whether they are of every row). ``total``: the
    weights of ``rows`` so far, or a callable giving them."""
    if trusted(weigher, weigher.population_twins):
        raw = _call_fast(weigher.weigh_population, population, spec_obj,
                         among)
        if raw is not None:
            return raw, True
    if callable(total):
        total = total()
    weighed = [weighers.WeighedHost(host, float(weight)) for host, weight
               in zip(population.hosts_at(rows), total, strict=True)]
    return np.asarray(weigher.weigh_objects(weighed, spec_obj),
                      dtype=float), False


def _multipliers(weigher, population, rows):
    if trusted(weigher, weigher.multiplier_twins):
        found = weigher.multiplier_population(population)
        if found is not None:
            return found if ndim(found) == 0 else found[rows]
    multiplier = weigher.weight_multiplier
    return np.array([multiplier(host) for host in population.hosts_at(rows)],
                    dtype=float)


def clamp(weigher, raw):
    """Clamp ``raw`` (an array) in place to the weigher's minval and
    maxval, as ``weight_objects`` clamps; returns its (lowest, highest)
    values once clamped."""
    minval, maxval = weigher.minval, weigher.maxval
    lowest, highest = raw.min(), raw.max()
    if minval is not None and lowest < minval:
        np.maximum(raw, minval, out=raw)
        lowest, highest = minval, max(highest, minval)
    if maxval is not None and highest > maxval:
        np.minimum(raw, maxval, out=raw)
        lowest, highest = min(lowest, maxval), maxval
    return lowest, highest


def bounds(weigher, lowest, highest):
    """(low, high) of ``weighers.normalize`` for clamped raw weights
    whose extremes are ``lowest`` and ``highest``."""
    low = lowest if weigher.minval is None else weigher.minval
    high = highest if weigher.maxval is None else weigher.maxval
    return low, high


def normalized(raw, low, high, out=None):
    """``(raw - low) / (high - low)`` (into ``out`` when given) as
    ``weighers.normalize`` computes it; None when high == low (every
    weight 0.0)."""
    if high == low:
        return None
    out = np.subtract(raw, low, out=out)
    np.divide(out, float(high - low), out=out)
    return out


def scale(norm, multiplier):
    """``norm`` times ``multiplier``, in place; skipped for a multiplier
    of one number 1.0, by which every float64 is its own product."""
    # A Python float (the option's value) is told apart without
    # np.ndim's dispatch.
    if ((isinstance(multiplier, float) or ndim(multiplier) == 0)
            and multiplier == 1.0):
        return
    np.multiply(norm, multiplier, out=norm)


class WeigherPart:
    """One weigher's share of the combined weights of some rows.

    ``added``: what it adds to each row's weight (multiplier times the
    normalised raw weight), None when it adds nothing; ``raw``: the
    clamped raw weights and ``lowest``/``highest`` their extremes, None
    when the raw weight is one number for all (``value``) or the
    multiplier is 0.0 (``fixed``: it adds the same whatever the hosts).
    ``counts``: how many rows in play hold ``lowest`` and ``highest``,
    when known (``increments`` keeps them).
    """

    __slots__ = ('multiplier', 'raw', 'lowest', 'highest', 'added',
                 'fixed', 'value', 'counts')

    def __init__(self, multiplier):
        self.multiplier = multiplier
        self.raw = self.lowest = self.highest = self.added = None
        self.fixed = False
        self.value = None
        self.counts = None


def weigh_part(weigher, population, rows, among, spec_obj, total,
               buffer=None):
    """(the WeigherPart of ``weigher`` for ``rows``, whether its
    whole-population twin ran). Its arrays are over ``rows``, in
    ``buffer`` when given (the caller then uses them at once)."""
    raw, of_all = _raw_weights(weigher, population, rows, among, spec_obj,
                               total)
    multiplier = _multipliers(weigher, population, rows)
    part = WeigherPart(multiplier)
    # Adding 0.0 (every value 0.0, or a multiplier of 0.0) times a
    # finite number changes no weight.
    scalar = finite_number(multiplier)
    norm = None
    one = ndim(raw) == 0
    if one or (scalar and multiplier == 0):
        part.fixed = True
        if one:
            part.value = raw
        if scalar:
            return part, of_all
    else:
        if of_all:
            raw = np.take(np.asarray(raw, dtype=float), rows, out=buffer)
        elif buffer is not None:
            buffer[:] = raw
            raw = buffer
        part.raw = raw
        part.lowest, part.highest = clamp(weigher, raw)
        low, high = bounds(weigher, part.lowest, part.highest)
        if buffer is None:
            norm = normalized(raw, low, high)
        else:
            norm = normalized(raw, low, high, out=raw)
            part.raw = None
    if norm is None:
        if scalar:
            return part, of_all
        norm = np.zeros(len(rows))
    scale(norm, multiplier)
    part.added = norm
    return part, of_all


def weigh(weigher_objs, population, rows, spec_obj, timings, among=None,
          parts=None):
    """The combined weights of ``rows`` (population rows, in order), as
    ``HostWeightHandler.get_weighed_objects`` computes them; each
    weigher's (name, seconds, fast) is appended to ``timings``.
    ``among``: ``rows`` as a bool mask, when the caller has it.
    ``parts``: a list to which each weigher's WeigherPart is appended
    (for ``increments``), when given."""
    total = np.zeros(len(rows))
    if len(rows) <= 1:
        return total
    buffer = np.empty(len(rows)) if parts is None else None
    if among is None:
        among = np.zeros(population.size, bool)
        among[rows] = True
    for weigher in weigher_objs:
        start = time.perf_counter()
        part, fast = weigh_part(weigher, population, rows, among, spec_obj,
                                total, buffer)
        if part.added is not None:
            np.add(total, part.added, out=total)
        if parts is not None:
            parts.append(part)
        timings.append((type(weigher).__name__,
                        time.perf_counter() - start, fast))
    return total


class Ranking:
    """Hosts heaviest first, ordered lazily a weight level at a time, as
    they are iterated or sliced; equal weights keep the rows' order (the
    per-host handler's stable sort). ``shuffle_ties`` and ``pick_from``
    apply ``shuffle_best_same_weighed_hosts`` and ``host_subset_size``
    exactly as the per-host path does (same ``rng`` calls).

    A subclass gives ``_next_level`` (the next level's items, in order,
    to ``_take_level``; False when none is left), ``_host(item)`` and
    ``__len__``.
    """

    def __init__(self):
        self._pending = np.empty(0, np.intp)
        self._order = []
        self._first_level = None

    def __len__(self):
        raise NotImplementedError()

    def _next_level(self):
        raise NotImplementedError()

    def _host(self, item):
        raise NotImplementedError()

    def _take_level(self, level):
        if self._first_level is None:
            self._first_level = len(level)
        self._pending = level

    def _ensure(self, count):
        order = self._order
        while len(order) < count:
            if not len(self._pending) and not self._next_level():
                break
            need = count - len(order)
            order.extend(self._pending[:need].tolist())
            self._pending = self._pending[need:]

    def shuffle_ties(self, rng):
        """Shuffle the hosts sharing the best weight."""
        self._ensure(1)
        ties = self._first_level or 0
        self._ensure(ties)
        head = self._order[:ties]
        rng.shuffle(head)
        self._order[:ties] = head

    def pick_from(self, subset, rng):
        """Move a random one of the first ``subset`` to the front."""
        self._ensure(subset)
        self._order.insert(0, self._order.pop(rng.randrange(subset)))

    def __iter__(self):
        position = 0
        while True:
            self._ensure(position + 1)
            if position >= len(self._order):
                return
            yield self._host(self._order[position])
            position += 1

    def __getitem__(self, index):
        if isinstance(index, slice):
            stop = len(self) if index.stop is None else index.stop
            self._ensure(stop)
            return [self._host(p) for p in self._order[index]]
        self._ensure(index + 1)
        return self._host(self._order[index])


class RankedHosts(Ranking):
    """The hosts of ``rows`` heaviest first by ``weights`` (a Ranking).

    ``weights`` is written to as levels are taken, so it is copied
    first, unless ``handed_over`` says the caller made it for this
    ranking alone (a copy of a large fleet's weights costs as much as
    finding a level).
    """

    def __init__(self, population, rows, weights, handed_over=False):
        super().__init__()
        self.population = population
        self.rows = rows
        self._left = weights if handed_over else weights.copy()
        self._remaining = len(rows)
        # The first level's weight, found with the finiteness check.
        self._top = None
        if len(weights):
            # NaN and infinities show in the extremes (NaN wins both):
            # two reductions, no mask of the rows.
            lowest, highest = weights.min(), weights.max()
            if np.isfinite(lowest) and np.isfinite(highest):
                self._top = highest
            else:
                self._order_at_once(weights)

    def _order_at_once(self, weights):
        # -inf is the "taken" mark below: order such weights at once.
        self._order = np.argsort(-weights, kind='stable').tolist()
        self._remaining = 0
        best = weights[self._order[0]] if self._order else None
        self._first_level = int(np.count_nonzero(weights == best))

    def __len__(self):
        return len(self.rows)

    def _next_level(self):
        if not self._remaining:
            return False
        left = self._left
        # Every weight left is finite (taken ones are -inf): the max is
        # the weight argmax would point at, found faster.
        value, self._top = (left.max() if self._top is None
                            else self._top), None
        level = np.flatnonzero(left == value)
        left[level] = -np.inf
        self._remaining -= len(level)
        self._take_level(level)
        return True

    def _host(self, position):
        return self.population.hosts[self.rows[position]]
