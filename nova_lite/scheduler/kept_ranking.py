"""Hosts ranked straight from the combined weights ``weight_cache`` keeps.

``weight_cache`` keeps the combined weight of every row of a large
Population per normalisation. Ranking a decision's filtered rows (its
pool) as ``fast_path.RankedHosts`` does would gather the pool's weights
(on a large fleet nearly every row) and scan them again for each weight
level taken. Instead the kept weights' rows are kept sorted by weight
(``SortedRows``), and a ranking (``KeptRanking``) walks from the
heaviest end to the first rows of its pool; the rows whose weight was
rewritten since the sort (claims, change notices) are looked at apart,
and the rows are sorted again once many are.

The order is RankedHosts' for the same weights: heaviest first, equal
weights in row order (a level's rows are sorted by row, so the sort
need not be stable). Only finite weights are ranked here (RankedHosts
orders others at once).
"""

import numpy as np

from nova_lite.scheduler import fast_path

# The rows are sorted again once this many of them were rewritten since
# (a share of the rows, or at least so many).
RESORT_SHARE = 1 / 64
RESORT_AT_LEAST = 512
# Rows looked at first when walking the sorted rows (then twice more
# at each step).
FIRST_WALK = 16
_NO_ROWS = np.zeros(0, dtype=np.intp)


class SortedRows:
    """The rows of ``weights`` sorted by weight, lightest first, and the
    rows rewritten since (``stale``, ``stale_rows``): their place in
    ``order`` is no longer theirs. Kept for the combined weights (ranked
    here) and for each weigher's raw weights (``weight_cache``, which
    walks them to the weigher's extremes)."""

    __slots__ = ('order', 'stale', 'stale_rows')

    def __init__(self, weights):
        self.order = np.argsort(weights).astype(
            np.int32 if len(weights) < 2**31 else np.intp)
        self.stale = np.zeros(len(weights), bool)
        self.stale_rows = _NO_ROWS

    def rewritten(self, rows):
        """Note that the weights of ``rows`` (an index array, each row
        once) were rewritten; False when so many were that the rows are
        better sorted again."""
        fresh = rows[~self.stale[rows]]
        self.stale[fresh] = True
        self.stale_rows = np.concatenate((self.stale_rows, fresh))
        size = len(self.stale)
        return len(self.stale_rows) <= max(RESORT_AT_LEAST,
                                           size * RESORT_SHARE)


class KeptRanking(fast_path.Ranking):
    """The ``count`` rows of ``pool`` (a bool mask over the rows) ranked
    by ``weights`` (finite, one per row), walking ``sorted_rows`` (their
    SortedRows): a ``fast_path.Ranking`` of the hosts of
    ``population``. ``weights`` is only read."""

    def __init__(self, population, weights, sorted_rows, pool, count):
        super().__init__()
        self.population = population
        self._weights = weights
        self._sorted = sorted_rows
        self._pool = pool
        self._count = self._remaining = count
        # How far the walk went from the heaviest end, its next stretch,
        # and the pool's rows it found and no level took yet (heaviest
        # first; equal weights in any order).
        self._done = 0
        self._step = FIRST_WALK
        self._walked = _NO_ROWS
        stale = sorted_rows.stale_rows
        # The pool's rewritten rows, which the walk passes over.
        self._loose = stale[pool[stale]]

    def __len__(self):
        return self._count

    def _host(self, row):
        return self.population.hosts[row]

    def _walk(self):
        """Walk the next stretch of the sorted rows; False when every row
        was walked."""
        order, stale = self._sorted.order, self._sorted.stale
        end = len(order) - self._done
        if end <= 0:
            return False
        part = order[max(0, end - self._step):end][::-1]
        self._done += len(part)
        self._step *= 2
        found = part[self._pool[part] & ~stale[part]]
        self._walked = (np.concatenate((self._walked, found))
                        if len(self._walked) else found)
        return True

    def _best(self):
        """The heaviest weight of the rows no level took, or None."""
        while not len(self._walked) and self._walk():
            pass
        found = []
        if len(self._walked):
            found.append(self._weights[self._walked[0]])
        if len(self._loose):
            found.append(self._weights[self._loose].max())
        return max(found) if found else None

    def _next_level(self):
        if not self._remaining:
            return False
        best = self._best()
        if best is None:
            return False
        weights = self._weights
        # The walked rows of the level lead the walked ones; rows not
        # walked yet may weigh as much while all of them do.
        while True:
            ties = int(np.count_nonzero(weights[self._walked] == best))
            if ties < len(self._walked) or not self._walk():
                break
        level = self._walked[:ties]
        self._walked = self._walked[ties:]
        loose = self._loose
        if len(loose):
            at = weights[loose] == best
            if at.any():
                level = np.concatenate((level, loose[at]))
                self._loose = loose[~at]
        level = np.sort(level)
        self._remaining -= len(level)
        self._take_level(level)
        return True
