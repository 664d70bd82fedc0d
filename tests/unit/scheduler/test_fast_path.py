"""Whole-population twins of the built-ins against their per-host
references, one filter and weigher at a time; the plug-in rules for
custom filters and weighers; the debug timings."""

import logging
import random

import numpy as np
import pytest

from nova_lite import exception
from nova_lite.scheduler import fast_path
from nova_lite.scheduler import filter_scheduler
from nova_lite.scheduler import filters
from nova_lite.scheduler.filters import core_filter
from nova_lite.scheduler.filters import ram_filter
from nova_lite.scheduler.filters import server_group_anti_affinity_filter
from nova_lite.scheduler import population as population_mod
from nova_lite.scheduler import weighers
from nova_lite.scheduler.weighers import metrics
from nova_lite.scheduler.weighers import ram

from . import fake_hosts
from . import fakes
from .filters import test_filter_all

UUIDS = ['00000000-0000-4000-8000-00000000010%d' % i for i in range(10)]


def _configure(conf, options):
    for key, value in options.items():
        group, name = key if isinstance(key, tuple) else (
            'filter_scheduler', key)
        conf.config(group=group, **{name: value})


def _fast_mask(flt, hosts, spec):
    population = population_mod.Population(hosts)
    passed = fast_path._call_fast(flt.filter_population, population, spec,
                                  population.mask())
    assert passed is not None
    return np.broadcast_to(passed, (len(hosts),)).tolist()


@pytest.mark.parametrize('cls', filters.all_filters(),
                         ids=lambda cls: cls.__name__)
def test_filter_population_keeps_what_host_passes_keeps(conf, cls):
    spec_args, options = test_filter_all.SCENARIOS[cls.__name__]
    _configure(conf, options)
    hosts = fake_hosts.random_fleet(random.Random(11))
    spec = fake_hosts.spec(**dict(test_filter_all.CAPACITY, **spec_args))
    flt = cls()
    assert fast_path.trusted(flt, flt.population_twins)
    expected = [flt.host_passes(h, spec) for h in hosts]
    assert _fast_mask(flt, hosts, spec) == expected
    # And for a request that does not concern the filter.
    plain = fake_hosts.spec(**test_filter_all.CAPACITY)
    assert _fast_mask(flt, hosts, plain) == [flt.host_passes(h, plain)
                                             for h in hosts]


def test_core_filter_passes_hosts_reporting_no_cpus():
    hosts = [fake_hosts.host('none', vcpus=None), fake_hosts.host('few',
                                                                  vcpus=1)]
    spec = fake_hosts.spec(vcpus=2)
    flt = core_filter.CoreFilter()
    assert _fast_mask(flt, hosts, spec) == [True, False]
    assert [flt.host_passes(h, spec) for h in hosts] == [True, False]


def test_anti_affinity_lets_an_instance_stay_on_its_host():
    """A move asks with the instance's own uuid: its host passes."""
    group = fake_hosts.Group('anti-affinity', members=UUIDS[:2])
    hosts = [fake_hosts.host('a', instances=UUIDS[:1]),
             fake_hosts.host('b', instances=UUIDS[1:2]),
             fake_hosts.host('c')]
    spec = fake_hosts.spec(instance_group=group, instance_uuid=UUIDS[0])
    flt = server_group_anti_affinity_filter.ServerGroupAntiAffinityFilter()
    expected = [True, False, True]
    assert [flt.host_passes(h, spec) for h in hosts] == expected
    assert _fast_mask(flt, hosts, spec) == expected


def _weigher_cases():
    return [cls for cls in weighers.all_weighers()
            if cls.__name__ != 'ImagePropertiesWeigher']


@pytest.mark.parametrize('cls', _weigher_cases(),
                         ids=lambda cls: cls.__name__)
def test_weigh_population_weighs_as_weigh_objects(conf, cls):
    conf.config(group='metrics', weight_setting=['cpu.percent=2.0',
                                                 'mem.free=-0.5'],
                required=False)
    hosts = fake_hosts.random_fleet(random.Random(5))
    for host in hosts:
        chosen = random.Random(host.host).choice([0, 1, 2])
        host.aggregates.append(fake_hosts.aggregate(
            'm', metrics_weight_multiplier=chosen, cpu_weight_multiplier=-2,
            pci_weight_multiplier=-1))
    group = fake_hosts.Group('soft-affinity', members=fake_hosts.MEMBERS[:5])
    spec = fake_hosts.spec(instance_group=group)
    weigher = cls()
    population = population_mod.Population(hosts)
    raw = np.broadcast_to(fast_path._call_fast(
        weigher.weigh_population, population, spec, population.mask()),
                          (len(hosts),))
    expected = [weigher._weigh_object(h, spec) for h in hosts]
    assert raw.tolist() == expected
    multiplier = np.broadcast_to(weigher.multiplier_population(population),
                                 (len(hosts),))
    assert multiplier.tolist() == [weigher.weight_multiplier(h)
                                   for h in hosts]


def test_metrics_unavailable_only_where_the_multiplier_counts(conf):
    conf.config(group='metrics', weight_setting=['cpu.percent=1.0'],
                required=False, weight_of_unavailable=-50.0)
    off = fake_hosts.aggregate('off', metrics_weight_multiplier='0')
    hosts = [fake_hosts.host('has', metrics={'cpu.percent': 5.0}),
             fake_hosts.host('lacks'),
             fake_hosts.host('lacks-off', aggregates=[off])]
    weigher = metrics.MetricsWeigher()
    population = population_mod.Population(hosts)
    expected = [5.0, -50.0, 0.0]
    assert [weigher._weigh_object(h, None) for h in hosts] == expected
    assert weigher.weigh_population(
        population, None, population.mask()).tolist() == expected


class _StrictRam(ram_filter.RamFilter):
    """A port that changes the rule but keeps RamFilter's fast path."""

    def host_passes(self, host_state, spec_obj):
        return host_state.free_ram_mb >= 2 * spec_obj.flavor.memory_mb


class _HalfRatioRam(ram_filter.RamFilter):
    def _get_ram_allocation_ratio(self, host_state, spec_obj):
        return 0.5


class _HalfRatioRamFast(_HalfRatioRam):
    def _ram_ratio_population(self, population, spec_obj):
        return 0.5


class _Odd(filters.BaseHostFilter):
    """A custom filter with no fast path: odd-numbered hosts."""

    def host_passes(self, host_state, spec_obj):
        return int(host_state.host[1:]) % 2 == 1


class _Heavier(ram.RAMWeigher):
    def _weigh_object(self, host_state, weight_properties):
        return -host_state.free_ram_mb


def test_twins_decide_whether_a_fast_path_may_stand_in():
    assert fast_path.trusted(ram_filter.RamFilter(),
                             ram_filter.RamFilter.population_twins)
    for flt in (_StrictRam(), _HalfRatioRam(), _Odd()):
        assert not fast_path.trusted(flt, flt.population_twins)
    assert fast_path.trusted(_HalfRatioRamFast(),
                             _HalfRatioRamFast.population_twins)
    heavier = _Heavier()
    assert not fast_path.trusted(heavier, heavier.population_twins)
    assert fast_path.trusted(heavier, heavier.multiplier_twins)


@pytest.mark.parametrize('custom', [_StrictRam, _HalfRatioRam,
                                    _HalfRatioRamFast, _Odd])
def test_custom_plug_ins_mix_with_built_ins(custom):
    def select(whole_population):
        hosts = [fakes.host('h%d' % i, memory_mb=1024 * (i + 1))
                 for i in range(8)]
        scheduler = filter_scheduler.FilterScheduler(
            [filters.HostFilterHandler().load_enabled_filters(
                enabled=['ComputeFilter'])[0], custom()],
            [ram.RAMWeigher(), _Heavier()], rng=random.Random(0),
            whole_population=whole_population)
        result = scheduler.select_destinations(
            fakes.spec(memory_mb=1024), hosts, UUIDS[:2],
            fakes.FakeClaimer())
        return [[s.service_host for s in r] for r in result]

    assert select(True) == select(False)


def test_per_filter_and_weigher_times_are_logged(caplog):
    caplog.set_level(logging.DEBUG, logger='nova_lite.scheduler.pipelines')
    scheduler = filter_scheduler.FilterScheduler(
        [_Odd()], [ram.RAMWeigher(), _Heavier()])
    hosts = [fakes.host('h%d' % i) for i in range(4)]
    scheduler.select_destinations(fakes.spec(), hosts, UUIDS[:1],
                                  fakes.FakeClaimer())
    [line] = [r.getMessage() for r in caplog.records
              if r.getMessage().startswith('Scheduling ')]
    assert 'placement (VCPU=1, MEMORY_MB=512, DISK_GB=1) 4->4 ' in line
    assert '_Odd 4->2 ' in line and '(per host)' in line
    assert 'RAMWeigher ' in line and '_Heavier ' in line


def test_ranked_hosts_keep_row_order_between_equal_weights():
    hosts = [fakes.host('h%d' % i) for i in range(6)]
    population = population_mod.Population(hosts)
    weights = np.array([1.0, 3.0, 1.0, 3.0, 2.0, 3.0])
    ranked = fast_path.RankedHosts(population, np.arange(6), weights)
    assert [h.host for h in ranked[:2]] == ['h1', 'h3']
    assert [h.host for h in ranked] == ['h1', 'h3', 'h5', 'h4', 'h0', 'h2']


def test_ranked_hosts_copy_weights_not_handed_over():
    """Ranking marks the levels it took in its weights: the caller's are
    left alone unless handed over (then they are used as they are)."""
    hosts = [fakes.host('h%d' % i) for i in range(4)]
    population = population_mod.Population(hosts)
    weights = np.array([1.0, 3.0, 2.0, 3.0])
    ranked = fast_path.RankedHosts(population, np.arange(4), weights)
    assert [h.host for h in ranked] == ['h1', 'h3', 'h2', 'h0']
    assert weights.tolist() == [1.0, 3.0, 2.0, 3.0]
    ranked = fast_path.RankedHosts(population, np.arange(4), weights,
                                   handed_over=True)
    assert [h.host for h in ranked[:1]] == ['h1']
    assert weights.tolist() == [1.0, -np.inf, 2.0, -np.inf]


def test_times_are_logged_when_nothing_fits_too(caplog):
    caplog.set_level(logging.DEBUG, logger='nova_lite.scheduler.pipelines')
    scheduler = filter_scheduler.FilterScheduler([_Odd()], [ram.RAMWeigher()])
    with pytest.raises(exception.NoValidHost):
        scheduler.select_destinations(fakes.spec(), [fakes.host('h2')],
                                      UUIDS[:1], fakes.FakeClaimer())
    [line] = [r.getMessage() for r in caplog.records
              if r.getMessage().startswith('Scheduling ')]
    assert '_Odd 1->0 ' in line and line.endswith('weighers: none')
