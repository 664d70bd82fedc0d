"""Aggregate helpers over a Population: what the hosts' aggregates say,
worked out once per distinct set of aggregates (the 'aggregates'
partition) and gathered per row.
"""

import numpy as np

from nova_lite.scheduler import utils

# Partitions keyed by the identity of hosts' aggregates.
AGGREGATE_PARTITIONS = ('aggregates', 'zones')


def aggregates_key(host):
    """The identity of a host's aggregates (shared AggregateViews)."""
    return tuple(map(id, getattr(host, 'aggregates', None) or ()))


def aggregate_keys(population):
    """Every metadata key of ``population``'s hosts' aggregates."""
    part = population.partition('aggregates', aggregates_key)
    keys = population._aggregate_keys
    if keys is not None and keys[:2] == (part, part.version):
        return keys[2]
    found = set()
    for code in range(len(part.keys)):
        row = part.rep(code)
        if row >= 0:
            for agg in utils.host_aggregates(population.hosts[row]):
                found.update(agg.metadata)
    population._aggregate_keys = (part, part.version, found)
    return found


def _per_key(population, part, key, cast_to):
    name = ('min', key, cast_to)
    cached = part.results.get(name)
    if cached is None or cached[0] != part.version:
        values = []
        for code in range(len(part.keys)):
            row = part.rep(code)
            values.append(np.nan if row < 0 else utils.aggregate_min(
                population.hosts[row], key, np.nan, cast_to))
        cached = part.results[name] = (part.version,
                                       part.table(values, np.nan), {})
    return cached


def aggregate_min(population, key, default, cast_to=float):
    """Per row, ``utils.aggregate_min(host, key, default, cast_to)``:
    the smallest ``key`` of the host's aggregates, else ``default`` (a
    number, or a column of one per row). Returns ``default`` itself
    when no aggregate has the key."""
    if key not in aggregate_keys(population):
        return default
    part = population.partition('aggregates', aggregates_key)
    cached = _per_key(population, part, key, cast_to)
    # Per row (a gather), reused while no row changes its aggregates.
    by_row = cached[2]
    size = population.size
    if by_row.get('rows') != (part.moves, size):
        values = cached[1][part.codes[:size]]
        by_row.clear()
        by_row.update(rows=(part.moves, size), values=values,
                      missing=np.isnan(values))
    if np.ndim(default) == 0 and by_row.get('default') == default:
        return by_row['result']
    result = np.where(by_row['missing'], default, by_row['values'])
    if np.ndim(default) == 0:
        by_row.update(default=default, result=result)
    return result
