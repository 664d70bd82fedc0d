"""Combined weights kept from one decision to the next.

Each weigher normalises its raw weights over the lowest and highest of
the hosts the filters kept, so one host's combined weight depends on the
other hosts only through those two numbers per weigher (and on the
multipliers). Two decisions whose filtered hosts have the same extremes
for every weigher give every host the same combined weight, however
else their filtered hosts differ (another flavor, another zone).

So the combined weight of every row of a Population is kept per
*normalisation* (each weigher's low and high and its multiplier), the
last few of them; a decision that finds its normalisation kept weighs
again only the rows ``sync`` re-read since (claims, change notices),
then ranks its filtered rows by them (``kept_ranking``, without
gathering them) or gathers their weights. A decision with a
normalisation not kept weighs every row once and keeps it. Only a
long-lived Population (``owned``: the host manager's) of ``MIN_ROWS``
rows or more keeps weights. The arithmetic is ``fast_path.weigh``'s,
per row, in the same order, so the weights are bit for bit those of a
full weighing.

Each weigher's extremes over the filtered rows are found from its raw
weights of every row, kept current the same way and sorted (again once
a share of the rows changed): walking from either end to the first
filtered row, the rows changed since the sort looked at apart.

It serves weighers whose raw weight is read from the host's numbers
alone (``rules.NumbersWeigher``, its whole-population twin trusted) and
those adding nothing (one raw weight for every host, or a multiplier of
0.0); with any other weigher (a server group's, metrics, image
properties weighing by the request) the decision weighs in full.
"""

import collections
import time

import numpy as np

from nova_lite.scheduler import fast_path
from nova_lite.scheduler import kept_ranking
from nova_lite.scheduler.weighers import rules

# Populations of fewer rows are weighed in full: below about 5,000 rows
# a full weighing costs less than the kept weights' bookkeeping (0.5 ms
# against 0.65 at 1,000 hosts, 0.85 against 0.75 at 10,000).
MIN_ROWS = 5000
# Normalisations kept per Population (each a float per row).
ENTRIES = 6
# Weighers' raw weights kept per Population (each a float per row).
COLUMNS = 32
# Rows looked at first when walking a weigher's sorted rows to an
# extreme (then twice more at each step). Its rows are sorted again by
# their raw weight as kept_ranking.SortedRows says.
FIRST_WALK = 64
# Changed rows up to this many are de-duplicated in Python.
SMALL_CHANGES = 64
# _kind's answers: {(weigher class, its twins, its weigh_population):
# (trusted, numbers)}.
_KINDS = {}
# Asked several times per weigher and decision (see fast_path).
_ndim = fast_path.ndim
_finite_number = fast_path.finite_number


class _Entry:
    """The combined weights of every row for one normalisation, as of
    ``position`` (``Population.change_position``) of ``hosts``."""

    __slots__ = ('hosts', 'size', 'position', 'total', 'keep', 'finite',
                 'sorted', 'weighers')

    def __init__(self, hosts, size, position, total, keep):
        self.hosts = hosts
        self.size = size
        self.position = position
        self.total = total
        # What the key names by identity, held so that no id is reused.
        self.keep = keep
        self.weighers = len(keep) // 2
        # Whether every weight is finite (only then ranked by
        # kept_ranking), and the rows sorted by weight once ranked.
        self.finite = bool(np.isfinite(total).all())
        self.sorted = None

    def rewrite(self, rows, total):
        """Write the weights ``total`` of ``rows`` (an index array)."""
        self.total[rows] = total
        if self.finite:
            self.finite = bool(np.isfinite(total).all())
        elif len(rows):
            self.finite = bool(np.isfinite(self.total).all())
        if self.sorted is not None and not self.sorted.rewritten(rows):
            self.sorted = None


class _Column:
    """A NumbersWeigher's clamped raw weights of every row of a
    Population, kept current with the rows ``sync`` re-reads, and the
    rows sorted by them, so that the lowest and highest weights of any
    rows are found by walking from either end to the first of those
    rows (rows changed since the sort are looked at apart).

    ``raw`` is one number when the weigher weighs every host alike.
    """

    __slots__ = ('weigher', 'hosts', 'size', 'position', 'raw', 'nan',
                 'sorted', 'reach')

    def __init__(self, weigher, population):
        self.weigher = weigher
        self.hosts = population.hosts
        self.size = population.size
        self.position = population.change_position()
        raw = weigher.weigh_population(population, None)
        # A copy: a weigher may answer with a column of the population.
        self.raw = raw if np.ndim(raw) == 0 else self._clamped(
            np.array(raw, dtype=float))
        self.nan = np.ndim(raw) != 0 and bool(np.isnan(self.raw).any())
        # The rows sorted by raw weight (kept_ranking.SortedRows), made
        # at the first walk.
        self.sorted = None
        # Per end (lowest, highest): how far into the sorted rows the
        # last walk went, the first stretch of the next one.
        self.reach = [FIRST_WALK, FIRST_WALK]

    def _clamped(self, values):
        # What fast_path.clamp makes of each value.
        weigher = self.weigher
        if weigher.minval is not None:
            np.maximum(values, weigher.minval, out=values)
        if weigher.maxval is not None:
            np.minimum(values, weigher.maxval, out=values)
        return values

    def update(self, population):
        """Bring the weights up to date; False when they cannot be (the
        rows were renumbered, or the changes are forgotten)."""
        if (self.hosts is not population.hosts
                or self.size != population.size):
            return False
        now = population.change_position()
        if self.position == now:
            return True
        rows = changed_rows(population, self.position)
        if rows is None:
            return False
        self.position = now
        if not len(rows) or _ndim(self.raw) == 0:
            return True
        weigher = self.weigher
        values = self._clamped(np.array(weigher.weight(*(
            population.column(name)[rows] for name in weigher.reads)),
            dtype=float))
        # Most rows re-read keep this weigher's weight (a claim moves the
        # free RAM, not the hypervisor version): only those whose weight
        # moved are written, and only they unsettle the sort. NaN never
        # equals itself, so a row holding one is always written. (On
        # these few rows count_nonzero answers all() and any() in a fifth
        # of their time: they go through Python-level wrappers.)
        moved = values != self.raw[rows]
        if np.count_nonzero(moved) != len(moved):
            rows, values = rows[moved], values[moved]
            if not len(rows):
                return True
        self.raw[rows] = values
        if self.nan or np.count_nonzero(np.isnan(values)):
            self.nan = bool(np.isnan(self.raw).any())
        if self.sorted is not None and not self.sorted.rewritten(rows):
            self.sorted = None
        return True

    def _first(self, among, from_end):
        """The weight of the first row of ``among`` not changed since the
        sort, walking from the lowest (or highest) weight; None when
        there is none."""
        order, stale = self.sorted.order, self.sorted.stale
        count = len(order)
        # Most often the very first row is among them: looked at alone,
        # it spares the array operations of a walk.
        if count:
            row = order[-1] if from_end else order[0]
            if among[row] and not stale[row]:
                return self.raw[row]
        # A walk starts with a stretch as long as the last one needed:
        # on a large fleet the lightest hosts are often full, and the
        # first request's rows thousands of rows in (one pass over them
        # costs less than doubling up to them).
        done, step = 0, self.reach[from_end]
        while done < count:
            if from_end:
                part = order[max(0, count - done - step):count - done][::-1]
            else:
                part = order[done:done + step]
            found = among[part] & ~stale[part]
            # argmax points at the first True, or at 0 when there is none.
            at = int(found.argmax())
            if found[at]:
                self.reach[from_end] = max(FIRST_WALK, done + at + 1)
                return self.raw[part[at]]
            done += step
            step *= 2
        return None

    def extremes(self, among, low=True, high=True):
        """(lowest, highest) weight of the rows of ``among`` (a bool mask
        over the rows, some marked), None for an end not asked for
        (``low``, ``high``); None when the weights hold NaN (the caller
        reads the rows)."""
        if self.nan:
            return None
        if self.sorted is None:
            self.sorted = kept_ranking.SortedRows(self.raw)
        stale = self.sorted.stale_rows
        values = self.raw[stale[among[stale]]] if len(stale) else stale
        found = []
        for wanted, from_end in ((low, False), (high, True)):
            if not wanted:
                found.append(None)
                continue
            value = self._end(among, from_end, values)
            if value is None:
                return None
            found.append(value)
        return tuple(found)

    def _end(self, among, from_end, values):
        """The lowest (or highest) weight of the rows of ``among``, the
        weights of its rows changed since the sort being ``values``."""
        first = self._first(among, from_end)
        if not len(values):
            return first
        last = values.max() if from_end else values.min()
        if first is None:
            return last
        return max(first, last) if from_end else min(first, last)


def changed_rows(population, position):
    """The rows ``sync`` re-read since ``position``, sorted, once each (an
    index array), or None when forgotten; worked out once for every
    reader at the same position until the rows change again."""
    now = population.change_position()
    memo = getattr(population, '_weight_changed', None)
    if memo is None or memo[0] != now:
        # The kept masks and weights of a decision read from several
        # positions (each request key last kept at its own).
        memo = population._weight_changed = (now, {})
    found = memo[1]
    if position not in found:
        changed = population.rows_changed_since(position)
        found[position] = None if changed is None else _unique(changed)
    return found[position]


def _unique(rows):
    """np.unique of ``rows`` (population rows): a few are sorted in
    Python, where np.unique's wrappers cost three times the sort."""
    if len(rows) <= SMALL_CHANGES:
        return np.array(sorted(set(rows)), dtype=np.intp)
    return np.unique(np.asarray(rows, dtype=np.intp))


def _column(population, weigher):
    """The _Column of ``weigher`` (a NumbersWeigher) on ``population``,
    up to date."""
    columns = getattr(population, '_weight_columns', None)
    if columns is None:
        columns = population._weight_columns = collections.OrderedDict()
    column = columns.get(id(weigher))
    if (column is None or column.weigher is not weigher
            or not column.update(population)):
        column = columns[id(weigher)] = _Column(weigher, population)
        if len(columns) > COLUMNS:
            columns.popitem(last=False)
    else:
        columns.move_to_end(id(weigher))
    return column


def _numbers(weigher):
    """Whether ``weigher``'s raw weight of a host is read from that host's
    numbers alone, element by element (``rules.NumbersWeigher``)."""
    return (getattr(type(weigher), 'weigh_population', None)
            is rules.NumbersWeigher.weigh_population)


def _kind(weigher):
    """(whether both of ``weigher``'s whole-population twins are
    trusted, whether it is a NumbersWeigher): fixed by its class and its
    twins, so asked once, not for each weigher at each decision."""
    cls = type(weigher)
    # Its weigh_population too: a class patched (tests) is asked again.
    key = (cls, weigher.population_twins, weigher.multiplier_twins,
           getattr(cls, 'weigh_population', None))
    kind = _KINDS.get(key)
    if kind is None:
        kind = _KINDS[key] = (
            fast_path.trusted(weigher, weigher.population_twins)
            and fast_path.trusted(weigher, weigher.multiplier_twins),
            _numbers(weigher))
    return kind


def _plan(weigher_objs, population, spec_obj, among):
    """[(weigher, its clamped raw weights of every row (a _Column) or
    None, multiplier (a number or one per row), whether that is one
    finite number)] of the weighers that add to the weights, in order;
    None when one of them cannot be kept (see the module docstring)."""
    plan = []
    for weigher in weigher_objs:
        trusted, numbers = _kind(weigher)
        if not trusted:
            return None
        column = None
        if numbers:
            # Its raw weights are read without side effects: a
            # multiplier of 0.0 spares keeping them at all.
            multiplier = weigher.multiplier_population(population)
            if multiplier is None:
                return None
            if _finite_number(multiplier) and multiplier == 0:
                continue
            column = _column(population, weigher)
            raw = column.raw
            if column.nan:
                return None
        else:
            raw = fast_path._call_fast(weigher.weigh_population,
                                       population, spec_obj, among)
            multiplier = weigher.multiplier_population(population)
        if raw is None or multiplier is None:
            return None
        scalar = _finite_number(multiplier)
        if _ndim(raw) == 0 or (scalar and multiplier == 0):
            if scalar:
                # fast_path.weigh_part: it adds nothing.
                continue
            return None
        if column is None:
            return None
        plan.append((weigher, column, multiplier, scalar))
    return plan


def _bounds(plan, rows, among):
    """Each planned weigher's (low, high) over ``rows`` (``among`` as a
    mask; None: read from it), as ``fast_path.weigh_part`` finds them."""
    found = []
    for weigher, column, _multiplier, _scalar in plan:
        # An end the weigher's minval or maxval fixes is not walked to.
        extremes = column.extremes(among, weigher.minval is None,
                                   weigher.maxval is None)
        if extremes is None:
            if rows is None:
                rows = np.flatnonzero(among)
            extremes = fast_path.clamp(weigher, np.take(column.raw, rows))
        found.append(fast_path.bounds(weigher, *extremes))
    return found


def _key(plan, bounds):
    return tuple(
        (id(weigher), low, high,
         multiplier if scalar or _ndim(multiplier) == 0
         else id(multiplier))
        for (weigher, _raw, multiplier, scalar), (low, high)
        in zip(plan, bounds, strict=True))


def combine(plan, bounds, rows):
    """The combined weights of ``rows`` (an index array, not empty) for
    ``bounds``: ``fast_path.weigh``'s arithmetic, per row."""
    total = np.zeros(len(rows))
    for (_weigher, column, multiplier, scalar), (low, high) in zip(
            plan, bounds, strict=True):
        # Clamped already (clamping is per value). Indexing copies as
        # np.take does, without its wrapper: most calls bring a few
        # changed rows up to date, where the wrappers cost more than the
        # arithmetic.
        picked = column.raw[rows]
        norm = fast_path.normalized(picked, low, high, out=picked)
        if norm is None:
            if scalar:
                continue
            norm = np.zeros(len(rows))
        fast_path.scale(norm, multiplier if _ndim(multiplier) == 0
                        else np.asarray(multiplier)[rows])
        np.add(total, norm, out=total)
    return total


def _entries(population):
    entries = getattr(population, '_weight_entries', None)
    if entries is None:
        entries = population._weight_entries = collections.OrderedDict()
    return entries


def _current(entry, population, plan, bounds):
    """Whether ``entry`` is brought up to date (False: it is stale)."""
    if entry.hosts is not population.hosts or entry.size != population.size:
        return False
    rows = changed_rows(population, entry.position)
    if rows is None:
        return False
    if len(rows):
        with np.errstate(all='ignore'):
            entry.rewrite(rows, combine(plan, bounds, rows))
    entry.position = population.change_position()
    return True


def _kept(weigher_objs, population, among, count, spec_obj, rows=None):
    """The _Entry of the weights of ``among``'s normalisation (a bool
    mask over the rows, ``count`` of them marked; ``rows``, those rows,
    when the caller has them), up to date, or None when these weighers'
    weights are not kept (module docstring)."""
    # A population made for one request (not the host manager's, which
    # its hosts keep current) would keep weights for nothing; a small one
    # is weighed in full faster than its kept weights are looked up.
    if (count <= 1 or not population.owned
            or population.size < MIN_ROWS):
        return None
    plan = _plan(weigher_objs, population, spec_obj, among)
    if plan is None:
        return None
    bounds = _bounds(plan, rows, among)
    key = _key(plan, bounds)
    entries = _entries(population)
    entry = entries.get(key)
    if entry is not None and _current(entry, population, plan, bounds):
        entries.move_to_end(key)
        return entry
    size = population.size
    with np.errstate(all='ignore'):
        # Every row, those filtered out too (their weights are not
        # read): a later decision's rows may be others.
        total = combine(plan, bounds, np.arange(size))
    entry = entries[key] = _Entry(
        population.hosts, size, population.change_position(), total,
        [item[0] for item in plan] + [item[2] for item in plan])
    if len(entries) > ENTRIES:
        entries.popitem(last=False)
    return entry


def _timed(timings, entry, start):
    timings.append(('kept weights of %d weighers' % entry.weighers,
                    time.perf_counter() - start, True))


# weigh's default: look the kept weights up.
_LOOK_UP = object()


def weigh(weigher_objs, population, rows, spec_obj, timings, among,
          entry=_LOOK_UP):
    """``fast_path.weigh(weigher_objs, population, rows, spec_obj,
    timings, among=among)``, from the kept weights when it can be
    (``entry``: their _Entry or None, when the caller looked them up)."""
    start = time.perf_counter()
    if entry is _LOOK_UP:
        entry = _kept(weigher_objs, population, among, len(rows),
                      spec_obj, rows)
    if entry is None:
        return fast_path.weigh(weigher_objs, population, rows, spec_obj,
                               timings, among=among)
    _timed(timings, entry, start)
    return np.take(entry.total, rows)


def rank(weigher_objs, population, pool, spec_obj, timings):
    """The ``fast_path.Ranking`` of the rows of ``pool`` (a bool mask
    over the rows): straight from the kept weights when they are kept
    and all finite (``kept_ranking``, without gathering them), else
    ``fast_path.RankedHosts`` of the weights ``weigh`` gives them (kept
    or weighed afresh), the weights looked up once either way."""
    start = time.perf_counter()
    count = int(np.count_nonzero(pool))
    entry = _kept(weigher_objs, population, pool, count, spec_obj)
    if entry is not None and entry.finite:
        if entry.sorted is None:
            entry.sorted = kept_ranking.SortedRows(entry.total)
        _timed(timings, entry, start)
        return kept_ranking.KeptRanking(population, entry.total,
                                        entry.sorted, pool, count)
    rows = np.flatnonzero(pool)
    weights = weigh(weigher_objs, population, rows, spec_obj, timings, pool,
                    entry)
    return fast_path.RankedHosts(population, rows, weights,
                                 handed_over=True)
