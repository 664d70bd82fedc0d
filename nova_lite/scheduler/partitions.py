"""Partitions: rows of a Population grouped by a key of their host.

A rule that depends only on some of a host's attributes is evaluated
once per distinct value of those attributes (the *key*) instead of once
per host, and its answer given to every row of that key: hosts' sets of
aggregates, their capabilities, their NUMA cells are few compared with
the hosts.
"""

import collections

import numpy as np


class Partition:
    """Rows grouped by ``key_fn(host)``: ``codes[row]`` numbers the key.

    Every row of a code has an equal key; ``rep(code)`` is one of them.
    A rule that depends on nothing but the key's inputs may be evaluated
    on the representative and broadcast to the code's rows.
    """

    def __init__(self, key_fn, capacity):
        self.key_fn = key_fn
        self.codes = np.full(capacity, -1, np.int32)
        self.index = {}
        self.keys = []
        self.reps = []
        self.counts = []
        # Request-independent answers ({name: (version, table)}) for
        # rules that only the keys' inputs decide; ``version`` moves
        # whenever a code gains its first row.
        self.results = collections.OrderedDict()
        self.version = 0
        # Moves whenever a row changes code.
        self.moves = 0
        # Codes that have rows.
        self.live = 0

    @property
    def bloated(self):
        """Whether keys no row has any more (a NUMA cell's old usage,
        say) outnumber the live ones: time to build it afresh."""
        return len(self.keys) > 2 * self.live + 1024

    def grow(self, capacity):
        codes = np.full(capacity, -1, np.int32)
        codes[:len(self.codes)] = self.codes
        self.codes = codes

    def code_for(self, key):
        code = self.index.get(key)
        if code is None:
            code = self.index[key] = len(self.keys)
            self.keys.append(key)
            self.reps.append(-1)
            self.counts.append(0)
        return code

    def assign(self, row, host):
        """(Re)key ``row`` (``host`` None: the row is gone)."""
        old = int(self.codes[row])
        code = -1 if host is None else self.code_for(self.key_fn(host))
        if code == old:
            return
        self.moves += 1
        if old >= 0:
            self.counts[old] -= 1
            self.live -= not self.counts[old]
            if self.reps[old] == row:
                self.reps[old] = -1
        self.codes[row] = code
        if host is None:
            return
        if not self.counts[code]:
            self.version += 1
            self.live += 1
        self.counts[code] += 1
        if self.reps[code] < 0:
            self.reps[code] = row

    def rep(self, code):
        """A row of ``code``, or -1 when it has none."""
        row = self.reps[code]
        if row < 0 and self.counts[code]:
            rows = np.flatnonzero(self.codes == code)
            row = self.reps[code] = int(rows[0]) if len(rows) else -1
        return row

    def needed(self, rows_mask):
        """The codes of the rows ``rows_mask`` marks."""
        present = np.zeros(len(self.keys) + 1, bool)
        present[self.codes[:len(rows_mask)][rows_mask]] = True
        return np.flatnonzero(present[:-1])

    def table(self, values, default):
        """Per-code ``values`` as an array whose [-1] is ``default``, so
        ``table[codes]`` gives absent rows the default."""
        return np.append(np.asarray(values), default)


def freeze(value):
    """A hashable, equality-preserving form of plain data (dicts, lists,
    sets, scalars), for partition keys."""
    if isinstance(value, dict):
        return ('d',) + tuple(sorted((k, freeze(v))
                                     for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return ('l',) + tuple(freeze(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return ('s',) + tuple(sorted(freeze(v) for v in value))
    hash(value)
    return value
