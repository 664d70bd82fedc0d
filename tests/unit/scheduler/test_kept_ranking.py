"""Hosts ranked straight from kept weights (``kept_ranking``) come in
the order ``fast_path.RankedHosts`` gives the same weights, with the
same ``rng`` calls, while rows are rewritten between rankings."""

import random
import types
from unittest import mock

import numpy as np
import pytest

from nova_lite.scheduler import fast_path
from nova_lite.scheduler import kept_ranking


def _population(size):
    return types.SimpleNamespace(hosts=['host%d' % row
                                        for row in range(size)])


def _weights(rng, size):
    # Few distinct values: many rows tie.
    return np.array([rng.choice([0.0, -0.0, 0.5, 1.0, 1.5, 2.0, -1.0])
                     for _ in range(size)])


def _rewrite(rng, weights, kept):
    rows = np.array(sorted(rng.sample(range(len(weights)),
                                      rng.randint(0, min(3, len(weights))))),
                    dtype=np.intp)
    weights[rows] = _weights(rng, len(rows))
    if not kept.rewritten(rows):
        kept = kept_ranking.SortedRows(weights)
    return kept


def _both(rng, weights, kept, pool, population):
    """(KeptRanking, RankedHosts) of ``pool``, each shuffled and picked
    from with an rng of the same seed."""
    rows = np.flatnonzero(pool)
    made = (kept_ranking.KeptRanking(population, weights, kept, pool,
                                     len(rows)),
            fast_path.RankedHosts(population, rows, weights[rows]))
    seed = rng.random()
    shuffle, subset = rng.random() < 0.5, rng.choice([1, 2, 3])
    for ranked in made:
        picker = random.Random(seed)
        if shuffle and len(ranked):
            ranked.shuffle_ties(picker)
        if min(subset, len(ranked)) > 1:
            ranked.pick_from(min(subset, len(ranked)), picker)
    return made


@pytest.mark.parametrize('walk, resort', [(16, 512), (1, 1), (2, 3)])
def test_ranks_as_the_gathered_weights(walk, resort):
    rng = random.Random(walk * 100 + resort)
    with mock.patch.object(kept_ranking, 'FIRST_WALK', walk), \
            mock.patch.object(kept_ranking, 'RESORT_AT_LEAST', resort), \
            mock.patch.object(kept_ranking, 'RESORT_SHARE', 0):
        for _fleet in range(60):
            size = rng.randint(1, 40)
            population = _population(size)
            weights = _weights(rng, size)
            kept = kept_ranking.SortedRows(weights)
            for _decision in range(8):
                kept = _rewrite(rng, weights, kept)
                pool = np.array([rng.random() < 0.7 for _ in range(size)])
                ranked, expected = _both(rng, weights, kept, pool,
                                         population)
                assert len(ranked) == len(expected)
                if rng.random() < 0.5:
                    assert list(ranked) == list(expected)
                else:
                    # Sliced as the claims and the alternates take them.
                    assert ranked[0:3] == expected[0:3]
                    assert ranked[1:] == expected[1:]


def test_a_rewritten_row_is_not_ranked_where_it_was_sorted():
    """A row whose weight was rewritten after the sort is ranked by its
    new weight, not at its old place in the sorted rows."""
    population = _population(4)
    weights = np.array([1.0, 2.0, 3.0, 4.0])
    kept = kept_ranking.SortedRows(weights)
    weights[3] = 0.5
    assert kept.rewritten(np.array([3]))
    pool = np.ones(4, bool)
    ranked = kept_ranking.KeptRanking(population, weights, kept, pool, 4)
    assert list(ranked) == ['host2', 'host1', 'host0', 'host3']


def test_too_many_rewritten_rows_ask_for_a_new_sort():
    weights = np.zeros(10)
    kept = kept_ranking.SortedRows(weights)
    with mock.patch.object(kept_ranking, 'RESORT_AT_LEAST', 2), \
            mock.patch.object(kept_ranking, 'RESORT_SHARE', 0):
        assert kept.rewritten(np.array([1, 2]))
        # A row rewritten again counts once.
        assert kept.rewritten(np.array([2]))
        assert not kept.rewritten(np.array([3]))
