"""Filter answers kept from one decision to the next.

A step whose answer for a host depends on that host's columns and on
the request alone (the placement step: a row's resource columns and
the amounts asked) gives every decision with the same request the same
answer for every row that did not change. So its answer for every row
of a long-lived Population (``owned``: the host manager's, ``MIN_ROWS``
rows or more) is kept per request key, the last ``ENTRIES`` of them,
and a decision that finds its key kept answers again only the rows
``sync`` re-read since (claims, change notices), with the same
arithmetic over those rows alone: the mask is bit for bit the one a
full evaluation gives.

    passed = kept_masks.answer(population, key, evaluate)

``evaluate(rows)`` answers the rows of ``rows`` (an index array), or
every row for None, as a bool array.
"""

import collections

import numpy as np

from nova_lite.scheduler import weight_cache

# Populations of fewer rows are answered in full (the bookkeeping costs
# more than it spares there).
MIN_ROWS = 5000
# Request keys kept per Population (each a bool per row).
ENTRIES = 16


class _Entry:
    """A step's answer for every row as of ``position``
    (``Population.change_position``) of ``hosts``."""

    __slots__ = ('hosts', 'size', 'position', 'passed')

    def __init__(self, hosts, size, position, passed):
        self.hosts = hosts
        self.size = size
        self.position = position
        self.passed = passed


def _entries(population):
    entries = getattr(population, '_kept_masks', None)
    if entries is None:
        entries = population._kept_masks = collections.OrderedDict()
    return entries


def _full(population, evaluate):
    passed = evaluate(None)
    if passed is True or np.ndim(passed) == 0:
        passed = np.full(population.size, bool(passed))
    return np.array(passed, dtype=bool)


def _bring_up_to_date(entry, population, evaluate):
    """Whether ``entry`` now answers every row (False: it cannot be
    brought up to date; the rows were renumbered or the changes are
    forgotten)."""
    if entry.hosts is not population.hosts or entry.size != population.size:
        return False
    rows = weight_cache.changed_rows(population, entry.position)
    if rows is None:
        return False
    if len(rows):
        entry.passed[rows] = evaluate(rows)
    entry.position = population.change_position()
    return True


def answer(population, key, evaluate):
    """The step's bool answer for every row of ``population`` (kept: not
    to be written to), ``evaluate`` being its rule (module docstring)."""
    if not population.owned or population.size < MIN_ROWS:
        return evaluate(None)
    entries = _entries(population)
    entry = entries.get(key)
    if entry is not None and _bring_up_to_date(entry, population, evaluate):
        entries.move_to_end(key)
        return entry.passed
    entry = entries[key] = _Entry(population.hosts, population.size,
                                  population.change_position(),
                                  _full(population, evaluate))
    if len(entries) > ENTRIES:
        entries.popitem(last=False)
    return entry.passed
