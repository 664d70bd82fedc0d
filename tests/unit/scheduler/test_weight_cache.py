"""Combined weights kept from one decision to the next
(``weight_cache``) choose as the per-host reference does.

Sequences of requests of a few flavors on one long-lived population,
with hosts changing between them (usage moving, services going down)
and the claims of each decision, so that decisions find their
normalisation kept and weigh again only the changed rows; each sequence
is run through the whole-population path and the reference path. Also
the placement step's bounds on min_unit and max_unit, kept across
decisions likewise.
"""

import random
from unittest import mock

import numpy as np
import pytest

from nova_lite import exception
from nova_lite import objects
from nova_lite.scheduler import filter_scheduler
from nova_lite.scheduler import filters
from nova_lite.scheduler import kept_ranking
from nova_lite.scheduler import population as population_mod
from nova_lite.scheduler import weight_cache
from nova_lite.scheduler import weighers
from nova_lite.scheduler.weighers import rules

from . import fakes
from . import random_fleet
from . import test_fast_path_property

SEQUENCES = 40 * test_fast_path_property.SCALE
REQUESTS_PER_SEQUENCE = 12
NUMBERS_WEIGHERS = [cls for cls in weighers.all_weighers()
                    if issubclass(cls, rules.NumbersWeigher)]
MULTIPLIERS = [name for name in test_fast_path_property.MULTIPLIERS
               if 'affinity' not in name and 'image' not in name]
# Filters whose answers do not need the request's image or hints.
FILTERS = ['ComputeFilter', 'RamFilter', 'CoreFilter', 'DiskFilter',
           'NumInstancesFilter', 'IoOpsFilter']


@pytest.fixture(autouse=True)
def _small_fleets_keep_weights():
    """The random fleets are small: keep their weights all the same."""
    with mock.patch.object(weight_cache, 'MIN_ROWS', 0):
        yield


def _settings(rng, conf):
    """Random multipliers, filters and weighers that the kept weights
    serve (or, now and then, one they do not)."""
    conf.config(group='filter_scheduler',
                host_subset_size=rng.choice([1, 1, 2]),
                shuffle_best_same_weighed_hosts=rng.random() < 0.2,
                max_io_ops_per_host=8, max_instances_per_host=50,
                **{name: rng.choice([0.0, 0.5, 1.0, 2.0] + (
                    [] if name in test_fast_path_property.POSITIVE
                    else [-1.0])) for name in MULTIPLIERS})
    conf.config(group='scheduler', max_attempts=rng.randint(1, 4))
    names = rng.sample(FILTERS, rng.randint(0, 3))
    classes = rng.sample(NUMBERS_WEIGHERS,
                         rng.randint(1, len(NUMBERS_WEIGHERS)))
    if rng.random() < 0.1:
        classes.append(rng.choice(test_fast_path_property.ALL_WEIGHERS))
    return names, classes


def _run_sequence(seed, names, classes, whole_population):
    rng = random.Random(seed)
    states, _aggregates = random_fleet.fleet(rng)
    flavors = [random_fleet.flavor(rng) for _ in range(2)]
    hosts = (population_mod.Population(states, owned=True)
             if whole_population else states)
    scheduler = filter_scheduler.FilterScheduler(
        filters.HostFilterHandler().load_enabled_filters(enabled=names),
        [cls() for cls in classes], rng=random.Random(seed),
        whole_population=whole_population)
    outcomes = []
    for index in range(REQUESTS_PER_SEQUENCE):
        test_fast_path_property._change_hosts(rng, states)
        spec = objects.RequestSpec(
            project_id='p1', user_id='u', flavor=rng.choice(flavors),
            num_instances=1, scheduler_hints={},
            image=random_fleet._image(rng))
        uuid = '%08d-0000-4000-8000-%012d' % (seed, index)
        try:
            result = scheduler.select_destinations(
                spec, hosts, [uuid], fakes.FakeClaimer())
            outcomes.append([[s.nodename for s in selections]
                             for selections in result])
        except exception.NovaLiteException as exc:
            outcomes.append((type(exc).__name__, exc.format_message()))
        outcomes.append([(s.free_ram_mb, s.vcpus_used, s.num_instances)
                         for s in states])
    return outcomes


def _sequences(conf, counts):
    current = weight_cache._current

    def spied(entry, population, plan, bounds):
        changed = population.rows_changed_since(entry.position)
        kept = current(entry, population, plan, bounds)
        counts['kept'] += kept
        counts['kept after changes'] += bool(kept and changed)
        return kept

    differ = []
    with mock.patch.object(weight_cache, '_current', spied):
        for seed in range(SEQUENCES):
            names, classes = _settings(random.Random(-seed), conf)
            if (_run_sequence(seed, names, classes, True)
                    != _run_sequence(seed, names, classes, False)):
                differ.append(seed)
    return differ


@pytest.mark.parametrize('resort, walk', [(512, 64), (1, 1), (3, 2)])
def test_kept_weights_choose_as_the_reference(conf, resort, walk):
    """With the defaults, and with the weighers' rows (and the kept
    weights' rows, ranked from them) sorted again after every change or
    few and walked a row or two at a time."""
    counts = {'kept': 0, 'kept after changes': 0}
    with mock.patch.object(weight_cache, 'FIRST_WALK', walk), \
            mock.patch.object(kept_ranking, 'RESORT_AT_LEAST', resort), \
            mock.patch.object(kept_ranking, 'RESORT_SHARE', 0), \
            mock.patch.object(kept_ranking, 'FIRST_WALK', walk):
        assert _sequences(conf, counts) == []
    # Most sequences found their weights kept, changed rows and all.
    assert counts['kept after changes'] > SEQUENCES


def test_forgetting_the_changed_rows_is_caught(conf):
    """The comparison fails when kept weights miss the rows changed
    since they were kept."""
    with mock.patch.object(population_mod.Population, 'rows_changed_since',
                           lambda self, position: []):
        assert _sequences(conf, {'kept': 0, 'kept after changes': 0})


def test_weights_equal_a_full_weighing(conf):
    """Kept or not, the weights are bit for bit fast_path.weigh's."""
    from nova_lite.scheduler import fast_path
    rng = random.Random(7)
    checked = 0
    for _seed in range(30):
        states, _aggregates = random_fleet.fleet(rng)
        names, classes = _settings(rng, conf)
        population = population_mod.Population(states, owned=True)
        weigher_objs = [cls() for cls in classes]
        spec = objects.RequestSpec(project_id='p1', user_id='u',
                                   flavor=random_fleet.flavor(rng),
                                   num_instances=1, scheduler_hints={})
        for _round in range(4):
            test_fast_path_property._change_hosts(rng, states)
            population.sync()
            among = population.mask().copy()
            among[rng.sample(range(population.size),
                             population.size // 3)] = False
            rows = among.nonzero()[0]
            kept = weight_cache.weigh(weigher_objs, population, rows, spec,
                                      [], among)
            full = fast_path.weigh(weigher_objs, population, rows, spec,
                                   [], among=among)
            assert kept.tobytes() == full.tobytes()
            checked += 1
    assert checked


class _Rows:
    """What _units_may_refuse reads of a Population: its rows and the
    record of the rows changed."""

    def __init__(self, size):
        self.hosts = [object() for _ in range(size)]
        self.size = size
        self.changes = []

    def change_position(self):
        return len(self.changes)

    def rows_changed_since(self, position):
        return self.changes[position:]


def test_unit_bounds_kept_answer_as_every_row():
    """The placement step's min_unit/max_unit shortcut, from bounds kept
    across decisions, answers as the reductions over every row, NaN and
    changed rows included."""
    import numpy as np

    from nova_lite.scheduler import population_resources
    rng = random.Random(3)
    for _case in range(50):
        size = rng.randint(1, 12)
        rows = _Rows(size)
        min_unit = np.array([float(rng.choice([1, 1, 2, 4]))
                             for _ in range(size)])
        max_unit = np.array([float(rng.choice([8, 16, 64]))
                             for _ in range(size)])
        res = population_resources.Resource(min_unit, max_unit, None, None,
                                            None, None, 0)
        for _step in range(20):
            for row in rng.sample(range(size), rng.randint(0, min(2, size))):
                min_unit[row] = rng.choice([1, 2, 4, np.nan])
                max_unit[row] = rng.choice([8, 16, 64, np.nan])
                rows.changes.append(row)
            amount = rng.choice([1, 2, 3, 8, 20])
            with np.errstate(invalid='ignore'):
                expected = bool(min_unit.max() > amount
                                or max_unit.min() < amount)
            assert filter_scheduler._units_may_refuse(
                rows, 'VCPU', res, amount) == expected


def test_rows_whose_weight_stayed_do_not_unsettle_the_sort(conf):
    """A row re-read with the same raw weight leaves a weigher's sorted
    rows settled; one whose weight moved is written and looked at apart,
    and the extremes follow it."""
    import numpy as np

    from nova_lite.scheduler.weighers import ram
    states = []
    rng = random.Random(5)
    while len(states) < 4:
        states, _aggregates = random_fleet.fleet(rng)
    population = population_mod.Population(states, owned=True)
    weigher = ram.RAMWeigher()
    column = weight_cache._column(population, weigher)
    among = population.mask().copy()
    column.extremes(among)
    # Re-read with nothing moved (a notice repeating what is known).
    population.mark_changed(states[0])
    population.sync()
    column = weight_cache._column(population, weigher)
    assert len(column.sorted.stale_rows) == 0
    # Its free RAM moves above every other host's.
    states[1].free_ram_mb = max(s.free_ram_mb for s in states) + 1024
    population.mark_changed(states[1])
    population.sync()
    column = weight_cache._column(population, weigher)
    row = population.row_of(states[1])
    assert list(column.sorted.stale_rows) == [row]
    assert column.raw[row] == states[1].free_ram_mb
    expected = np.maximum(population.column('free_ram_mb')[among], 0)
    assert column.extremes(among) == (expected.min(), expected.max())


@pytest.mark.parametrize('walk', [1, 2, 64])
def test_walks_find_the_extremes_of_any_rows(conf, walk):
    """Each walk starts with a stretch as long as the last one needed:
    rows far in, then near the ends, then anywhere, the extremes are
    those of the rows asked about."""
    import numpy as np

    from nova_lite.scheduler.weighers import ram
    rng = random.Random(11)
    with mock.patch.object(weight_cache, 'FIRST_WALK', walk):
        for _fleet in range(20):
            states, _aggregates = random_fleet.fleet(rng)
            population = population_mod.Population(states, owned=True)
            column = weight_cache._Column(ram.RAMWeigher(), population)
            raw = np.maximum(population.column('free_ram_mb'), 0)
            order = np.argsort(raw, kind='stable')
            for _request in range(10):
                among = np.zeros(population.size, bool)
                if rng.random() < 0.5:
                    # Only rows from the middle of the sorted ones.
                    low = rng.randint(0, population.size - 1)
                    among[order[low:rng.randint(low + 1,
                                                population.size)]] = True
                else:
                    among[rng.sample(range(population.size),
                                     rng.randint(1, population.size))] = True
                assert column.extremes(among) == (raw[among].min(),
                                                  raw[among].max())
                assert column.extremes(among, low=False) == (
                    None, raw[among].max())
                assert column.extremes(among, high=False) == (
                    raw[among].min(), None)


def test_a_weighers_kind_follows_its_weigh_population():
    """_kind keeps, per weigher class, whether its raw weight is read
    from the host numbers alone; a class whose weigh_population is
    replaced afterwards (a patch) is asked again, not served the kept
    answer (which would keep weights its new method does not give)."""

    class Free(rules.NumbersWeigher):
        reads = ('free_ram_mb',)

    weigher = Free()
    assert weight_cache._kind(weigher) == (True, True)

    def by_hand(self, population, spec_obj, among=None):
        return None

    with mock.patch.object(Free, 'weigh_population', by_hand):
        assert weight_cache._kind(weigher) == (True, False)
    assert weight_cache._kind(weigher) == (True, True)


def test_finite_number_answers_as_numpy():
    for value in (0.0, -1.5, 2, True, float('inf'), float('nan'),
                  np.float64(3.0), np.float64('nan'), np.array(1.0),
                  np.array(np.inf)):
        assert weight_cache._finite_number(value) == bool(
            np.isfinite(value)), value
    assert not weight_cache._finite_number(np.array([1.0, 2.0]))


def test_changed_rows_are_np_uniques_answer():
    """Few changed rows are de-duplicated in Python, many by numpy: the
    same sorted index array either way."""
    rng = random.Random(13)
    for count in (0, 1, 2, 5, weight_cache.SMALL_CHANGES,
                  weight_cache.SMALL_CHANGES + 1, 500):
        rows = _Rows(1000)
        rows.changes = [rng.randrange(1000) for _ in range(count)]
        found = weight_cache.changed_rows(rows, 0)
        expected = np.unique(np.asarray(rows.changes, dtype=np.intp))
        assert found.dtype == expected.dtype
        assert found.tolist() == expected.tolist()


def test_changed_rows_kept_per_position_not_served_stale():
    """Readers at several positions are each answered from the rows
    changed since theirs; once more rows change, none is served what it
    was answered before."""
    rows = _Rows(10)
    rows.changes = [4, 2, 4]
    assert weight_cache.changed_rows(rows, 0).tolist() == [2, 4]
    assert weight_cache.changed_rows(rows, 2).tolist() == [4]
    assert weight_cache.changed_rows(rows, 0).tolist() == [2, 4]
    rows.changes.append(7)
    assert weight_cache.changed_rows(rows, 0).tolist() == [2, 4, 7]
    assert weight_cache.changed_rows(rows, 2).tolist() == [4, 7]
    assert weight_cache.changed_rows(rows, 4).tolist() == []


def test_kept_weights_not_all_finite_are_not_ranked_from():
    """Weights holding NaN or an infinity are ranked by RankedHosts,
    which orders them at once: the kept ranking serves only while every
    kept weight is finite, as rewritten rows make it again."""
    weights = np.array([1.0, 2.0, 3.0])
    entry = weight_cache._Entry(None, 3, 0, weights, [])
    assert entry.finite
    entry.rewrite(np.array([1]), np.array([np.inf]))
    assert not entry.finite
    entry.rewrite(np.array([2]), np.array([np.nan]))
    assert not entry.finite
    entry.rewrite(np.array([1, 2]), np.array([0.5, 0.25]))
    assert entry.finite
    assert entry.total.tolist() == [1.0, 0.5, 0.25]


def test_ranked_falls_back_when_a_kept_weight_is_not_finite():
    from nova_lite.scheduler import fast_path
    population = mock.Mock(owned=True, size=weight_cache.MIN_ROWS)
    entry = weight_cache._Entry(None, 3, 0, np.array([1.0, np.nan, 0.0]),
                                [])
    with mock.patch.object(weight_cache, '_kept', return_value=entry):
        ranked = weight_cache.rank([], population, np.ones(3, bool), None,
                                   [])
    assert not isinstance(ranked, kept_ranking.KeptRanking)
    assert isinstance(ranked, fast_path.RankedHosts) and len(ranked) == 3
    entry.rewrite(np.array([1]), np.array([2.0]))
    with mock.patch.object(weight_cache, '_kept', return_value=entry):
        ranked = weight_cache.rank([], population, np.ones(3, bool),
                                   None, [])
    assert isinstance(ranked, kept_ranking.KeptRanking)
    assert len(ranked) == 3


def test_an_end_fixed_by_minval_is_not_walked_to(conf):
    """CPUWeigher's minval is its low bound whatever the rows: the
    bounds walk only to the highest weight, and are those of a full
    weighing."""
    from nova_lite.scheduler import fast_path
    from nova_lite.scheduler.weighers import cpu
    rng = random.Random(17)
    states = []
    while len(states) < 4:
        states, _aggregates = random_fleet.fleet(rng)
    population = population_mod.Population(states, owned=True)
    weigher = cpu.CPUWeigher()
    assert weigher.minval is not None and weigher.maxval is None
    plan = [(weigher, weight_cache._column(population, weigher), 1.0, True)]
    among = population.mask().copy()
    walked = []
    first = weight_cache._Column._first

    def spied(self, among, from_end):
        walked.append(from_end)
        return first(self, among, from_end)

    with mock.patch.object(weight_cache._Column, '_first', spied):
        bounds = weight_cache._bounds(plan, None, among)
    assert walked == [True]
    raw = np.take(plan[0][1].raw, np.flatnonzero(among))
    assert bounds == [fast_path.bounds(weigher,
                                       *fast_path.clamp(weigher, raw))]


@pytest.mark.parametrize('cls', NUMBERS_WEIGHERS,
                         ids=lambda cls: cls.__name__)
def test_few_changed_rows_are_weighed_as_a_fresh_column(conf, cls):
    """A column brought up to date with a few changed rows at a time
    holds what a column weighed afresh holds, bit for bit (clamped
    weights, NaN and back), and its sorted rows stay sorted but for the
    rows looked at apart."""
    import math

    import numpy as np

    rng = random.Random(23)
    states = []
    while len(states) < 6:
        states, _aggregates = random_fleet.fleet(rng)
    population = population_mod.Population(states, owned=True)
    weigher = cls()
    column = weight_cache._column(population, weigher)
    if np.ndim(column.raw) == 0:
        pytest.skip('%s weighs every host alike' % cls.__name__)
    column.extremes(population.mask().copy())
    names = [n for n in weigher.reads if n != 'pci_free']
    odd = [0.0, -0.0, -3.0, 1e300, math.nan, 7.5]
    for step in range(40):
        for host in rng.sample(states, rng.randint(1, 4)):
            for name in names:
                setattr(host, name, rng.choice(
                    odd + [rng.uniform(-10, 4000)]))
            population.mark_changed(host)
        with np.errstate(all='ignore'):  # 1e300 overflows, NaN compares
            population.sync()
            column = weight_cache._column(population, weigher)
            fresh = weight_cache._Column(weigher, population)
        assert np.array_equal(column.raw, fresh.raw, equal_nan=True)
        assert np.array_equal(np.signbit(column.raw),
                              np.signbit(fresh.raw))
        assert column.nan == fresh.nan
        if column.sorted is not None:
            stale = column.sorted.stale
            # Every row whose weight differs from the sort's is apart.
            order = column.sorted.order
            settled = order[~stale[order]]
            values = column.raw[settled]
            if not column.nan:
                assert (np.diff(values) >= 0).all(), step

