"""Each host input reads the same on both paths, and the filters and
weighers built on inputs answer the same on both paths.

Random fleets (seeded: a failure names its seed) on one long-lived,
owned Population, with host changes between rounds as notices bring
them (instances placed, moved and gone, hosts renamed nowhere): every
input's ``of_population`` column equals its ``of_host`` read host by
host, every built-in filter stated on inputs keeps exactly the
hosts its ``host_passes`` keeps on random requests, with the reasons
its ``rejection_reason`` gives, and every weigher stated on inputs
weighs the rows in play as its per-host method does (or refuses the
same first host with the same error).
"""

import os
import random

import numpy as np
import pytest

from nova_lite import exception
from nova_lite.scheduler import filters
from nova_lite.scheduler.filters import rules
from nova_lite.scheduler import host_inputs
from nova_lite.scheduler import host_state
from nova_lite.scheduler import population as population_mod
from nova_lite.scheduler import weighers
from nova_lite.scheduler.weighers import rules as weigher_rules

from . import random_fleet

SCALE = int(os.environ.get('NOVA_LITE_PROPERTY_SCALE', '1'))
FLEETS = 40 * SCALE
ROUNDS = 5
INPUT_FILTERS = [cls for cls in filters.all_filters()
                 if issubclass(cls, rules.InputsFilter)]


def _some(rng, values, most=4):
    values = list(values)
    return rng.sample(values, rng.randint(0, min(most, len(values))))


def _uuids(rng, states):
    running = {uuid for state in states for uuid in state.instances}
    return (_some(rng, random_fleet.MEMBERS) + _some(rng, running)
            + _some(rng, ['not-running'], 1))


def _random_inputs(rng, states):
    hosts = {state.host for state in states}
    pairs = [(state.host, state.nodename) for state in states]
    crossed = [(a[0], b[1]) for a, b in zip(pairs, reversed(pairs),
                                           strict=True)]
    return [
        host_inputs.RunsAny(_uuids(rng, states)),
        host_inputs.RunsAny(()),
        host_inputs.CountRunning(_uuids(rng, states)),
        host_inputs.HostNamed(_some(rng, hosts) + _some(rng, ['nope'], 1)),
        host_inputs.NodeNamed(_some(rng, pairs) + _some(rng, crossed)
                              + _some(rng, [('h0',), ('x', 'y', 'z')], 2)),
        host_inputs.HasMetric(rng.choice(['cpu.percent', 'mem.free', 'x'])),
        host_inputs.MetricValue(rng.choice(['cpu.percent', 'mem.free'])),
    ]


def _change_hosts(rng, states):
    """Instances placed, moved and gone on some hosts; metrics moved."""
    for state in _some(rng, states, 3):
        kept = _some(rng, state.instances.values(), 3)
        for uuid in _some(rng, random_fleet.MEMBERS, 2):
            kept.append(host_state.HostInstance(
                uuid=uuid, project_id='p1', vm_state='active',
                task_state=None, flavor=None, image_properties={},
                group_uuids=frozenset()))
        state.set_instances(kept)
    for state in _some(rng, states, 2):
        # A placement by this scheduler (an instance joins the host).
        state.add_instance(host_state.HostInstance(
            uuid=rng.choice(random_fleet.MEMBERS), project_id='p1',
            vm_state='building', task_state=None, flavor=None,
            image_properties={}, group_uuids=frozenset()))
    for state in _some(rng, states, 2):
        state.metrics = dict(_some(rng, [('cpu.percent', 3.0),
                                         ('mem.free', 7.5)], 2))
        state._changed()


def _rounds(seed):
    """(states, population) after each round of changes."""
    rng = random.Random(seed)
    states, _aggregates = random_fleet.fleet(rng)
    population = population_mod.Population(states, owned=True)
    for _round in range(ROUNDS):
        _change_hosts(rng, states)
        population.sync()
        yield rng, states, population


def _present(column, population):
    rows = population.mask().nonzero()[0]
    return np.broadcast_to(column, (population.size,))[rows].tolist()


def test_each_input_reads_the_same_for_a_host_and_a_population():
    kinds = set()
    for seed in range(FLEETS):
        for rng, states, population in _rounds(seed):
            for read in _random_inputs(rng, states):
                per_host = [read.of_host(state) for state in population]
                column = _present(read.of_population(population),
                                  population)
                assert column == per_host, 'seed %d: %r' % (seed, read)
                if any(per_host):
                    kinds.add(type(read).__name__)
    # The cases reach hosts for which each input is true.
    assert kinds == {'RunsAny', 'CountRunning', 'HostNamed', 'NodeNamed',
                     'HasMetric', 'MetricValue'}


def test_the_input_filters_are_the_ones_that_read_requests_lists():
    # A guard against one of them going back to reading its inputs in
    # two places: add a filter here only with a reason.
    assert {cls.__name__ for cls in INPUT_FILTERS} == {
        'SameHostFilter', 'DifferentHostFilter',
        'ServerGroupAffinityFilter', 'ServerGroupAntiAffinityFilter',
        'GroupAffinityFilter', 'GroupAntiAffinityFilter',
        'IsolatedHostsFilter', 'RetryFilter'}


def _settings(rng, conf, states):
    hosts = sorted({state.host for state in states})
    conf.config(group='filter_scheduler',
                isolated_hosts=_some(rng, hosts + ['nope'], 3),
                isolated_images=rng.choice(
                    [[], [random_fleet.ISOLATED_IMAGE]]),
                restrict_isolated_hosts_to_isolated_images=(
                    rng.random() < 0.5))


@pytest.mark.parametrize('cls', INPUT_FILTERS, ids=lambda c: c.__name__)
def test_input_filters_answer_the_same_on_both_paths(conf, cls):
    flt = cls()
    rejected = 0
    for seed in range(FLEETS):
        for rng, states, population in _rounds(seed):
            _settings(rng, conf, states)
            spec, _uuids = random_fleet.request(rng, states)
            if rng.random() < 0.5:
                # The request's instance may already run on some host.
                spec.instance_uuid = rng.choice(random_fleet.MEMBERS)
            reasons = [flt.rejection_reason(state, spec)
                       for state in population]
            assert [flt.host_passes(state, spec)
                    for state in population] == [r is None for r in reasons]
            passed = _present(flt.filter_population(
                population, spec, population.mask()), population)
            assert passed == [r is None for r in reasons], 'seed %d' % seed
            rejected += sum(r is not None for r in reasons)
    assert rejected


INPUT_WEIGHERS = [cls for cls in weighers.all_weighers()
                  if issubclass(cls, weigher_rules.InputsWeigher)]


def test_the_input_weighers():
    # As above, for the weighers whose rule reads host inputs.
    assert {cls.__name__ for cls in INPUT_WEIGHERS} == {
        'ServerGroupSoftAffinityWeigher',
        'ServerGroupSoftAntiAffinityWeigher', 'MetricsWeigher'}


def _metrics_settings(rng, conf):
    conf.config(group='metrics', required=rng.random() < 0.3,
                weight_setting=rng.choice(
                    [[], ['cpu.percent=1.0'], ['mem.free=0.0'],
                     ['cpu.percent=-1.0', 'mem.free=0.5']]),
                weight_multiplier=rng.choice([1.0, -1.0, 0.0]),
                weight_of_unavailable=rng.choice([-10000.0, 3.0]))


def _weights(call, *args):
    """The raw weights ``call(*args)`` gives, or the exception's class
    and text."""
    try:
        return [float(w) for w in call(*args)]
    except exception.NovaLiteException as exc:
        return type(exc).__name__, exc.format_message()


def _both_paths(weigher, population, among, spec):
    hosts = population.hosts_at(among.nonzero()[0])
    per_host = _weights(weigher.weigh_objects,
                        [weighers.WeighedHost(h, 0.0) for h in hosts], spec)
    column = _weights(lambda: np.broadcast_to(
        weigher.weigh_population(population, spec, among),
        (population.size,))[among])
    return per_host, column


@pytest.mark.parametrize('cls', INPUT_WEIGHERS, ids=lambda c: c.__name__)
def test_input_weighers_weigh_the_same_on_both_paths(conf, cls):
    weigher = cls()
    outcomes = set()
    for seed in range(FLEETS):
        for rng, states, population in _rounds(seed):
            _metrics_settings(rng, conf)
            spec, _uuids = random_fleet.request(rng, states)
            if rng.random() < 0.5:
                spec.instance_group = random_fleet.group(
                    rng, sorted({s.host for s in states}), 'p1',
                    cls.__name__ == 'ServerGroupSoftAffinityWeigher'
                    and 'soft-affinity' or 'soft-anti-affinity')
            among = population.mask() & (np.arange(population.size) % 3 > 0
                                         if rng.random() < 0.3 else True)
            per_host, column = _both_paths(weigher, population, among, spec)
            assert column == per_host, 'seed %d' % seed
            outcomes.add(per_host[0] if isinstance(per_host, tuple)
                         else len(set(per_host)) > 1)
    # Hosts weigh differently, and (for the metrics) some are refused.
    assert True in outcomes
    if cls.__name__ == 'MetricsWeigher':
        assert 'ComputeHostMetricNotFound' in outcomes
