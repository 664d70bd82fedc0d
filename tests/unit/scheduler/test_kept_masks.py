"""The placement step's answers kept from one decision to the next
(``kept_masks``) choose as the per-host reference does.

Sequences of requests of a few flavors on one long-lived population,
hosts changing between them (usage moving, services going down) and
each decision's claims changing its host, run through the
whole-population path and the reference path; also the sequences of
the whole-pipeline property test, every filter and weigher in play.
"""

import random
from unittest import mock

import numpy as np
import pytest

from nova_lite import objects
from nova_lite.scheduler import filter_scheduler
from nova_lite.scheduler import kept_masks
from nova_lite.scheduler import population as population_mod
from nova_lite.scheduler import weight_cache

from . import random_fleet
from . import test_fast_path_property
from . import test_weight_cache

SEQUENCES = 40 * test_fast_path_property.SCALE


@pytest.fixture(autouse=True)
def _small_fleets_keep_masks():
    """The random fleets are small: keep their answers all the same."""
    with mock.patch.object(kept_masks, 'MIN_ROWS', 0), \
            mock.patch.object(weight_cache, 'MIN_ROWS', 0):
        yield


def _differ(conf, counts, run_sequence, settings, sequences=SEQUENCES):
    bring_up_to_date = kept_masks._bring_up_to_date

    def spied(entry, population, evaluate):
        changed = population.rows_changed_since(entry.position)
        kept = bring_up_to_date(entry, population, evaluate)
        counts['kept after changes'] += bool(kept and changed)
        return kept

    differ = []
    with mock.patch.object(kept_masks, '_bring_up_to_date', spied):
        for seed in range(sequences):
            names, classes = settings(random.Random(-seed), conf)
            if (run_sequence(seed, names, classes, True)
                    != run_sequence(seed, names, classes, False)):
                differ.append(seed)
    return differ


def test_kept_answers_choose_as_the_reference(conf):
    counts = {'kept after changes': 0}
    assert _differ(conf, counts, test_weight_cache._run_sequence,
                   test_weight_cache._settings) == []
    # Most sequences found their answers kept, changed rows and all.
    assert counts['kept after changes'] > SEQUENCES


def test_kept_answers_with_every_filter_and_weigher(conf):
    counts = {'kept after changes': 0}
    assert _differ(conf, counts, test_fast_path_property._run_sequence,
                   test_fast_path_property._settings,
                   sequences=SEQUENCES // 2) == []
    assert counts['kept after changes']


def test_forgetting_the_changed_rows_is_caught(conf):
    """The comparison fails when kept answers miss the rows changed
    since they were kept."""
    def stale(entry, population, evaluate):
        entry.position = population.change_position()
        return (entry.hosts is population.hosts
                and entry.size == population.size)

    with mock.patch.object(kept_masks, '_bring_up_to_date', stale):
        assert _differ(conf, {'kept after changes': 0},
                       test_weight_cache._run_sequence,
                       test_weight_cache._settings)


def test_kept_answer_equals_a_full_answer(conf):
    """Kept or not, the placement step's mask is bit for bit the one
    every row gives, whatever checks apply (odd steps, units)."""
    rng = random.Random(11)
    checked = 0
    for _seed in range(30):
        states, _aggregates = random_fleet.fleet(rng)
        population = population_mod.Population(states, owned=True)
        flavors = [random_fleet.flavor(rng) for _ in range(3)]
        for _round in range(6):
            test_fast_path_property._change_hosts(rng, states)
            population.sync()
            spec = objects.RequestSpec(project_id='p1', user_id='u',
                                       flavor=rng.choice(flavors),
                                       num_instances=1, scheduler_hints={})
            step = filter_scheduler.PlacementStep(spec.resources)
            kept = step.filter_population(population, spec)
            with mock.patch.object(kept_masks, 'MIN_ROWS', 10**9):
                full = step.filter_population(population, spec)
            expected = np.array([step.host_passes(host, spec)
                                 for host in population.hosts])
            assert np.array_equal(np.broadcast_to(kept, expected.shape),
                                  expected)
            assert np.array_equal(np.broadcast_to(full, expected.shape),
                                  expected)
            checked += 1
    assert checked
