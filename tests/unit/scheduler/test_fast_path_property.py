"""The whole-population path and the per-host reference path choose the
same hosts.

Random fleets, requests and settings (seeded, so a failure names its
seed): each case is scheduled twice on equal copies, once through each
path, with the same claims lost to "concurrent" schedulers, and every
observable outcome must be equal: the selections and alternates of each
instance, or the exception and its text (NoValidHost explanations
included, so each step's counts and reasons), the claims made and
released, the hosts refreshed, and the request's server group after.
"""

import os
import random
from unittest import mock

import pytest

from nova_lite import exception
from nova_lite.scheduler import fast_path
from nova_lite.scheduler import filter_scheduler
from nova_lite.scheduler import filters
from nova_lite.scheduler import increments
from nova_lite.scheduler import population as population_mod
from nova_lite.scheduler import request_filter
from nova_lite.scheduler import weighers

from . import fakes
from . import random_fleet

# More cases (and sequences) with NOVA_LITE_PROPERTY_SCALE=<factor>.
SCALE = int(os.environ.get('NOVA_LITE_PROPERTY_SCALE', '1'))
CASES = 400 * SCALE
ALL_FILTERS = sorted(cls.__name__ for cls in filters.all_filters())
ALL_WEIGHERS = [cls for cls in weighers.all_weighers()]
POSITIVE = ('pci_weight_multiplier', 'soft_affinity_weight_multiplier',
            'soft_anti_affinity_weight_multiplier')
MULTIPLIERS = ('ram_weight_multiplier', 'cpu_weight_multiplier',
               'disk_weight_multiplier', 'io_ops_weight_multiplier',
               'build_failure_weight_multiplier',
               'hypervisor_version_weight_multiplier',
               'num_instances_weight_multiplier',
               'image_props_weight_multiplier') + POSITIVE


def _settings(rng, conf):
    """Random [filter_scheduler], [scheduler], [metrics], [pci] options;
    returns (enabled filter names, weigher classes)."""
    fs = dict(
        max_io_ops_per_host=rng.choice([1, 2, 8]),
        max_instances_per_host=rng.choice([1, 3, 50]),
        isolated_hosts=rng.choice([[], ['h0', 'h3']]),
        isolated_images=rng.choice([[], [random_fleet.ISOLATED_IMAGE]]),
        restrict_isolated_hosts_to_isolated_images=rng.random() < 0.5,
        image_props_weight_setting=rng.choice(
            [[], ['os_distro=10', 'hw_architecture=1']]),
        aggregate_image_properties_isolation_namespace=rng.choice(
            [None, None, 'os']),
        aggregate_image_properties_isolation_separator='_',
        image_properties_default_architecture=rng.choice(
            [None, None, 'x86_64']),
        host_subset_size=1 if rng.random() < 0.8 else rng.randint(2, 4),
        shuffle_best_same_weighed_hosts=rng.random() < 0.2)
    for name in MULTIPLIERS:
        choices = [0.0, 0.5, 1.0, 2.0] + ([] if name in POSITIVE
                                          else [-1.0, -2.0])
        fs[name] = rng.choice(choices)
    conf.config(group='filter_scheduler', **fs)
    conf.config(group='scheduler', max_attempts=rng.randint(1, 4),
                query_placement_for_availability_zone=rng.random() < 0.5,
                query_placement_for_image_type_support=rng.random() < 0.3,
                enable_isolated_aggregate_filtering=rng.random() < 0.3,
                limit_tenants_to_placement_aggregate=rng.random() < 0.3,
                placement_aggregate_required_for_tenants=rng.random() < 0.3)
    conf.config(group='metrics', required=rng.random() < 0.3,
                weight_setting=rng.choice(
                    [[], ['cpu.percent=1.0'],
                     ['cpu.percent=-1.0', 'mem.free=0.5']]),
                weight_multiplier=rng.choice([1.0, -1.0, 0.0]))
    conf.config(group='pci', alias=[random_fleet.PCI_ALIAS])
    # Mostly a few filters, so that many requests find hosts to weigh.
    names = rng.sample(ALL_FILTERS, rng.choice(
        [0, 1, 2, 3, 4, 6, 8, len(ALL_FILTERS)]))
    classes = rng.sample(ALL_WEIGHERS, rng.randint(0, len(ALL_WEIGHERS)))
    return names, classes


def _refresh(refreshed):
    """A refresh that finds another scheduler's claim on the host."""
    def refresh(host):
        refreshed.append(host.nodename)
        host.consume({'VCPU': 1, 'MEMORY_MB': 512},
                     (host.generation or 0) + 1)
    return refresh


def _run(seed, names, classes, whole_population, instances=None,
         lost_share=0.2):
    rng = random.Random(seed)
    states, aggregates = random_fleet.fleet(rng)
    spec, uuids = random_fleet.request(rng, states)
    if instances:
        spec.num_instances = instances
        uuids = ['%08d-0000-4000-8000-%012d' % (seed, index)
                 for index in range(instances)]
    lost = {state.uuid for state in states if rng.random() < lost_share}
    claimer = fakes.FakeClaimer(conflicts=lost)
    refreshed = []
    scheduler = filter_scheduler.FilterScheduler(
        filters.HostFilterHandler().load_enabled_filters(enabled=names),
        [cls() for cls in classes], rng=random.Random(seed),
        whole_population=whole_population)
    try:
        prefilters = request_filter.process_reqspec(spec, aggregates)
        result = scheduler.select_destinations(
            spec, states, uuids, claimer, refresh_host=_refresh(refreshed),
            prefilters=prefilters)
        outcome = [[(s.service_host, s.nodename, s.compute_node_uuid)
                    for s in selections] for selections in result]
    except exception.NovaLiteException as exc:
        outcome = (type(exc).__name__, exc.format_message())
    group = (spec.instance_group if spec.obj_attr_is_set('instance_group')
             else None)
    return dict(outcome=outcome, claims=claimer.claims,
                released=claimer.released, refreshed=refreshed,
                group=group and (list(group.members), list(group.hosts)),
                usage=[(s.free_ram_mb, s.vcpus_used, s.num_instances)
                       for s in states])


@pytest.mark.parametrize('block', range(4))
def test_both_paths_choose_the_same_hosts(conf, block):
    outcomes = set()
    for seed in range(block * CASES // 4, (block + 1) * CASES // 4):
        names, classes = _settings(random.Random(-seed), conf)
        fast = _run(seed, names, classes, True)
        reference = _run(seed, names, classes, False)
        assert fast == reference, 'seed %d' % seed
        outcomes.add(type(fast['outcome']).__name__
                     if isinstance(fast['outcome'], list)
                     else fast['outcome'][0])
    # The cases reach both placements and failures.
    assert {'list', 'NoValidHost'} <= outcomes


def test_built_ins_answer_for_the_whole_population(conf):
    """No built-in falls back to host by host on these requests."""
    conf.config(group='pci', alias=[random_fleet.PCI_ALIAS])
    conf.config(group='metrics', weight_setting=['cpu.percent=1.0'],
                required=False)
    seen = set()
    for seed in range(40):
        rng = random.Random(seed)
        states, aggregates = random_fleet.fleet(rng)
        spec, _uuids = random_fleet.request(rng, states)
        population = population_mod.Population(states)
        steps = filters.HostFilterHandler().load_enabled_filters(
            enabled=ALL_FILTERS)
        trace = []
        mask = population.mask().copy()
        for step in steps:
            fast_path.run_filters([step], population, mask, spec, 0, trace)
        assert all(step.fast for step in trace), [
            step.name for step in trace if not step.fast]
        seen.update(step.name for step in trace)
        timings = []
        fast_path.weigh([cls() for cls in ALL_WEIGHERS], population,
                        mask.nonzero()[0], spec, timings)
        slow = [name for name, _s, fast in timings if not fast
                and name != 'ImagePropertiesWeigher']
        assert not slow
    assert seen == set(ALL_FILTERS)


SEQUENCES = 24 * SCALE
REQUESTS_PER_SEQUENCE = 6


def _change_hosts(rng, states):
    """Host changes between two requests, as notices bring them: usage
    moving on some hosts, a service going down or coming back."""
    for state in rng.sample(states, rng.randint(0, min(3, len(states)))):
        state.consume({'VCPU': 1, 'MEMORY_MB': rng.choice([256, 1024])},
                      (state.generation or 0) + 1)
    if rng.random() < 0.3:
        state = rng.choice(states)
        service = state.service
        if service is not None:
            service = dict(service, disabled=not service['disabled'])
            state.update_service(service, up=getattr(state, 'service_up',
                                                      True))


def _run_sequence(seed, names, classes, whole_population):
    """Outcomes of a sequence of requests on one fleet; the fast path
    keeps one owned Population (its columns, partitions and cached
    answers) across them, as the host manager does."""
    rng = random.Random(seed)
    states, aggregates = random_fleet.fleet(rng)
    hosts = (population_mod.Population(states, owned=True)
             if whole_population else states)
    scheduler = filter_scheduler.FilterScheduler(
        filters.HostFilterHandler().load_enabled_filters(enabled=names),
        [cls() for cls in classes], rng=random.Random(seed),
        whole_population=whole_population)
    outcomes = []
    for _request in range(REQUESTS_PER_SEQUENCE):
        _change_hosts(rng, states)
        spec, uuids = random_fleet.request(rng, states)
        claimer = fakes.FakeClaimer()
        try:
            prefilters = request_filter.process_reqspec(spec, aggregates)
            result = scheduler.select_destinations(
                spec, hosts, uuids, claimer, prefilters=prefilters)
            outcomes.append([[s.nodename for s in selections]
                             for selections in result])
        except exception.NovaLiteException as exc:
            outcomes.append((type(exc).__name__, exc.format_message()))
        outcomes.append([(s.free_ram_mb, s.vcpus_used, s.num_instances)
                         for s in states])
    return outcomes


def test_sequences_on_a_long_lived_population(conf):
    """Requests with host changes between them on one population (the
    caches carried from request to request) choose as the reference."""
    placed = 0
    for seed in range(SEQUENCES):
        names, classes = _settings(random.Random(-seed), conf)
        fast = _run_sequence(seed, names, classes, True)
        reference = _run_sequence(seed, names, classes, False)
        assert fast == reference, 'sequence %d' % seed
        placed += sum(isinstance(o, list) and o and isinstance(o[0], list)
                      for o in fast)
    assert placed


MULTI_CASES = 160 * SCALE


def _multi_case(seed, conf):
    names, classes = _settings(random.Random(-seed), conf)
    instances = random.Random(seed).randint(4, 10)
    return (_run(seed, names, classes, True, instances, 0.03),
            _run(seed, names, classes, False, instances, 0.03))


def _spy(counts, name, function):
    def spied(*args, **kwargs):
        result = function(*args, **kwargs)
        counts[name] += result is not None
        return result
    return spied


@pytest.mark.parametrize('block', range(2))
def test_multi_instance_requests_choose_the_same_hosts(conf, block):
    """Requests of 4 to 10 instances: each instance after the first is
    evaluated again only on the hosts claimed since (``increments``),
    and chooses as the reference, which runs every filter and weigher
    over every host for every instance."""
    counts = {'filters': 0, 'weights': 0}
    reweigh = increments.Reweigher.reweigh
    with mock.patch.object(increments, 'run_filters', _spy(
            counts, 'filters', increments.run_filters)), \
            mock.patch.object(increments.Reweigher, 'reweigh',
                              lambda *a, **k: _spy(counts, 'weights',
                                                   reweigh)(*a, **k)):
        for seed in range(block * MULTI_CASES // 2,
                          (block + 1) * MULTI_CASES // 2):
            fast, reference = _multi_case(seed, conf)
            assert fast == reference, 'seed %d' % seed
    # The increments did the work of most later instances.
    assert (counts['filters'] > MULTI_CASES // 2
            and counts['weights'] > MULTI_CASES // 4)


@pytest.mark.parametrize('broken', ['filters', 'weights'])
def test_a_wrong_increment_is_caught(conf, broken):
    """The comparison above fails when an increment forgets the claimed
    host: the changed host's filter answers, or its new weight."""
    if broken == 'filters':
        run_filters = increments.run_filters
        patch = mock.patch.object(
            increments, 'run_filters',
            lambda *args: run_filters(*args[:-1], []))
    else:
        patch = mock.patch.object(increments.Reweigher, '_update_added',
                                  staticmethod(lambda *args: None))
    with patch:
        differ = [seed for seed in range(MULTI_CASES)
                  if len(set(map(repr, _multi_case(seed, conf)))) > 1]
    assert differ
