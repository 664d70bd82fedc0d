"""The evaluation cache: a per-host rule answered once per distinct key.

A filter or weigher whose per-host answer depends only on a key of the
host (its aggregates, capabilities, NUMA cells) and on the request is
evaluated on one representative row per key of a Partition, and the
answers are spread back over the rows by the partition's codes. With a
``cache`` key naming the request's relevant fields, the answers are kept
per partition key and reused by the next requests with an equal
``cache``; the partition's version says when a key gained rows and so
may need answering.
"""

import numpy as np

# Requests whose answers a partition keeps.
MAX_CACHED_ANSWERS = 64


def evaluate(population, part, fn, default=False, dtype=bool, cache=None,
             among=None):
    """Per row of ``population``, ``fn(host)`` evaluated once per key
    of ``part`` (the representative's answer is its key's).

    Without ``cache``, only for the keys of the rows of ``among`` (a
    bool row mask; None: every present row); other rows get
    ``default``. With ``cache`` (a hashable naming all that ``fn`` reads
    besides the key's inputs), the answers are kept per key and reused.
    """
    if cache is not None:
        return _evaluate_cached(population, part, fn, default, dtype, cache)
    if among is None:
        among = population.mask()
    values = np.full(len(part.keys), default, dtype)
    hosts = population.hosts
    for code in part.needed(among):
        row = part.rep(code)
        if row >= 0:
            values[code] = fn(hosts[row])
    return part.table(values, default)[part.codes[:population.size]]


def _cached_entry(part, default, dtype, cache):
    results = part.results
    entry = results.get(('evaluate', cache))
    if entry is None:
        count = len(part.keys)
        entry = [np.full(count + 1, default, dtype),
                 np.zeros(count, bool), None]
        results[('evaluate', cache)] = entry
        if len(results) > MAX_CACHED_ANSWERS:
            results.popitem(last=False)
    else:
        results.move_to_end(('evaluate', cache))
    return entry


def _evaluate_cached(population, part, fn, default, dtype, cache):
    entry = _cached_entry(part, default, dtype, cache)
    count = len(part.keys)
    values, known, version = entry
    codes = part.codes[:population.size]
    if version == part.version and len(known) == count:
        # No key gained rows since every live key was answered.
        return values[codes]
    if len(known) < count:
        # Codes new since: unknown yet ([-1] stays the default).
        grown = np.full(count + 1, default, dtype)
        grown[:len(known)] = values[:len(known)]
        values = entry[0] = grown
        known = entry[1] = np.append(known, np.zeros(count - len(known),
                                                     bool))
    hosts = population.hosts
    for code in np.flatnonzero(~known):
        # Keys without rows stay unknown: one may gain rows later.
        row = part.rep(code)
        if row >= 0:
            values[code] = fn(hosts[row])
            known[code] = True
    entry[2] = part.version
    return values[codes]
