"""The placement resource columns of a Population: per resource class,
what a host's inventory allows and what it uses, as arrays over rows,
for the capacity step (``filter_scheduler``) to check every host at
once.
"""

import collections
import itertools

import numpy as np

# Per resource class: (min_unit, max_unit, step_size, capacity, used,
# free), capacity being int((total - reserved) * allocation_ratio) and
# free capacity - used; where the class is absent free is -inf and the
# units are -inf and inf (so they do not narrow the bounds of the rows
# that have it); ``odd_steps`` counts the rows whose step_size is not 1.
Resource = collections.namedtuple(
    'Resource', 'min_unit max_unit step_size capacity used free odd_steps')
_ABSENT_RC = (0.0, -np.inf, np.inf, 1.0, 0.0, 0.0, -np.inf)


def _resources(host):
    """{rc: (min_unit, max_unit, step_size, capacity)} and usages."""
    limits = getattr(host, 'resource_limits', None)
    return (limits() if limits is not None else {},
            getattr(host, 'usages', None) or {})


def resource_values(limits, usages):
    """((rc, (1.0, min_unit, max_unit, step_size, capacity, used, free)),
    ...) of ``limits`` ({rc: (min_unit, max_unit, step_size, capacity)})
    and ``usages`` ({rc: used}, 0 when absent): what the columns hold of
    a host with them."""
    values = []
    for rc, (min_unit, max_unit, step_size, capacity) in limits.items():
        used = usages.get(rc, 0)
        values.append((rc, (1.0, min_unit, max_unit, step_size, capacity,
                            used, capacity - used)))
    return tuple(values)


def _float_rows(values):
    """``np.array(values, dtype=float)`` of ``values``, tuples of
    len(_ABSENT_RC) numbers each, read in one pass (without working out
    the shape and type of a nested list first)."""
    width = len(_ABSENT_RC)
    return np.fromiter(itertools.chain.from_iterable(values), float,
                       count=width * len(values)).reshape(len(values),
                                                          width)


def _groups(hosts, first):
    """[(resource values, [rows])] of ``hosts`` (rows ``first`` on, None
    skipped): the rows whose values are one object together. Host states
    of the same limits and usages share theirs (``resource_values``), so
    a million rows make a few thousand groups, gathered a group at a
    time rather than a row at a time."""
    groups = {}
    for row, host in enumerate(hosts, first):
        if host is None:
            continue
        values_of = getattr(host, 'resource_values', None)
        items = (values_of() if values_of is not None
                 else resource_values(*_resources(host)))
        # Keyed by identity, the values held by the entry (so an id is
        # never another's while the groups exist).
        group = groups.get(id(items))
        if group is None:
            group = groups[id(items)] = (items, [])
        group[1].append(row)
    return groups.values()


class ResourceColumns:
    """Per resource class, a (7, capacity) array: a presence row, then
    the fields of ``Resource`` but ``odd_steps``."""

    def __init__(self, capacity):
        self.capacity = capacity
        self._rc = {}
        self._odd_steps = collections.Counter()

    def arrays(self):
        return list(self._rc.values())

    def grow(self, capacity):
        old, self.capacity = self.capacity, capacity
        for rc, values in list(self._rc.items()):
            grown = np.empty((len(_ABSENT_RC), capacity))
            grown.T[:] = _ABSENT_RC
            grown[:, :old] = values
            self._rc[rc] = grown

    def fill(self, hosts, rows):
        """Re-read ``rows`` of ``hosts`` (None: a discarded row)."""
        odd = self._odd_steps
        for row in rows:
            host = hosts[row]
            limits, usages = _resources(host) if host is not None else ({},
                                                                        {})
            for rc in limits.keys() - self._rc.keys():
                values = np.empty((len(_ABSENT_RC), self.capacity))
                values.T[:] = _ABSENT_RC
                self._rc[rc] = values
            for rc, values in self._rc.items():
                odd[rc] -= values[3, row] != 1.0
                fit = limits.get(rc)
                if fit is None:
                    values[:, row] = _ABSENT_RC
                    continue
                min_unit, max_unit, step_size, capacity = fit
                used = usages.get(rc, 0)
                values[:, row] = (1.0, min_unit, max_unit, step_size,
                                  capacity, used, capacity - used)
                odd[rc] += step_size != 1

    def fill_new(self, hosts, first=0):
        """Read ``hosts``, rows ``first`` on, into rows not filled yet (a
        reset): ``fill`` of each row, with one array write per class."""
        found = {}
        for items, rows in _groups(hosts, first):
            for rc, value in items:
                entry = found.get(rc)
                if entry is None:
                    entry = found[rc] = ([], [])
                entry[0].extend(rows)
                entry[1].extend(itertools.repeat(value, len(rows)))
        for rc, (rows, values) in found.items():
            column = self._rc.get(rc)
            if column is None:
                column = np.empty((len(_ABSENT_RC), self.capacity))
                column.T[:] = _ABSENT_RC
                self._rc[rc] = column
            column[:, rows] = _float_rows(values).T
            self._odd_steps[rc] += int(np.count_nonzero(
                column[3, rows] != 1.0))

    def resource(self, rc, size):
        """Resource arrays of class ``rc`` over the first ``size`` rows,
        or None when no host has it."""
        values = self._rc.get(rc)
        if values is None:
            return None
        return Resource(*(values[i, :size] for i in range(1, 7)),
                        odd_steps=self._odd_steps[rc])
