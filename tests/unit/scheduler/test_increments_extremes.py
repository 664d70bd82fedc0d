"""The extremes of an incremental weigher's raw weights, kept from the
counts of the hosts holding them, are those found by looking at every
host again."""

import random

import numpy as np

from nova_lite.scheduler import fast_path
from nova_lite.scheduler import increments


def _part(raw):
    part = fast_path.WeigherPart(1.0)
    part.raw = raw
    part.lowest, part.highest = raw.min(), raw.max()
    part.counts = (int(np.count_nonzero(raw == part.lowest)),
                   int(np.count_nonzero(raw == part.highest)))
    return part


def test_unknown_counts_look_again():
    part = _part(np.array([1.0, 2.0]))
    part.counts = None
    assert increments._moved_extremes(part, [1.0], [1.5]) is None


def test_the_last_holder_of_an_extreme_leaving_looks_again():
    part = _part(np.array([1.0, 2.0, 3.0]))
    assert increments._moved_extremes(part, [3.0], [2.5]) is None
    assert increments._moved_extremes(part, [1.0], [1.5]) is None


def test_another_holder_keeps_the_extreme():
    part = _part(np.array([1.0, 3.0, 3.0, 1.0]))
    assert increments._moved_extremes(part, [3.0], [2.0]) == (1.0, 3.0,
                                                               (2, 1))
    assert increments._moved_extremes(part, [3.0], [0.5]) == (0.5, 3.0,
                                                               (1, 1))
    assert increments._moved_extremes(part, [1.0], [4.0]) == (1.0, 4.0,
                                                               (1, 1))


def test_not_finite_numbers_look_again():
    part = _part(np.array([1.0, 3.0, 3.0]))
    assert increments._moved_extremes(part, [1.0], [float('nan')]) is None
    assert increments._moved_extremes(part, [1.0], [float('inf')]) is None


def test_random_changes_agree_with_a_full_look():
    rng = random.Random(7)
    for _trial in range(300):
        raw = np.array([float(rng.randint(0, 4))
                        for _ in range(rng.randint(2, 8))])
        live = np.ones(len(raw), bool)
        part = _part(raw.copy())
        for _step in range(6):
            positions = np.flatnonzero(live).tolist()
            touched = rng.sample(positions, rng.randint(0, len(positions)))
            gone = []
            rest = [p for p in positions if p not in touched]
            if len(rest) > 1 and rng.random() < 0.3:
                gone = [rng.choice(rest)]
            before = [raw[p] for p in touched + gone]
            values = [float(rng.randint(0, 4)) for _ in touched]
            raw[touched] = values
            live[gone] = False
            found = increments._moved_extremes(part, before, values)
            in_play = raw[live]
            low, high = in_play.min(), in_play.max()
            counts = (int(np.count_nonzero(in_play == low)),
                      int(np.count_nonzero(in_play == high)))
            if found is not None:
                assert found == (low, high, counts)
            part.lowest, part.highest, part.counts = low, high, counts
