"""Built-in rules stated once: every answer derives from one definition,
a port that changes the definition is not trusted with the old fast
path, and the rows in play reach fast methods as an argument."""

import collections
import random

import numpy as np
import pytest

from nova_lite.scheduler import fast_path
from nova_lite.scheduler import filters
from nova_lite.scheduler.filters import availability_zone_filter
from nova_lite.scheduler.filters import rules
from nova_lite.scheduler import population as population_mod
from nova_lite.scheduler import weighers

from .. import fake_hosts
from . import test_filter_all


def _rule_filters():
    return [cls for cls in filters.all_filters()
            if issubclass(cls, rules.RuleFilter)]


def test_most_built_in_filters_are_rule_filters():
    # A guard against a built-in quietly going back to restating its
    # rule: add a filter here only with a reason.
    names = {cls.__name__ for cls in _rule_filters()}
    assert {'AvailabilityZoneFilter', 'AggregateTypeAffinityFilter',
            'AggregateMultiTenancyIsolation',
            'AggregateImagePropertiesIsolation',
            'AggregateInstanceExtraSpecsFilter',
            'ComputeCapabilitiesFilter', 'ImagePropertiesFilter',
            'JsonFilter', 'MetricsFilter', 'NUMATopologyFilter',
            'PciPassthroughFilter', 'SimpleCIDRAffinityFilter'} <= names


@pytest.mark.parametrize('cls', _rule_filters(), ids=lambda c: c.__name__)
def test_answers_derive_from_the_one_failure(conf, cls):
    spec_args, options = test_filter_all.SCENARIOS[cls.__name__]
    for key, value in options.items():
        group, name = key if isinstance(key, tuple) else (
            'filter_scheduler', key)
        conf.config(group=group, **{name: value})
    hosts = fake_hosts.random_fleet(random.Random(3))
    spec = fake_hosts.spec(**dict(test_filter_all.CAPACITY, **spec_args))
    flt = cls()
    reasons = [flt.rejection_reason(h, spec) for h in hosts]
    assert [flt.host_passes(h, spec) for h in hosts] == [
        reason is None for reason in reasons]
    population = population_mod.Population(hosts)
    passed = np.broadcast_to(flt.filter_population(
        population, spec, population.mask()), (len(hosts),))
    assert passed.tolist() == [reason is None for reason in reasons]
    rejected = [h for h, r in zip(hosts, reasons, strict=True) if r]
    expected = filters.format_counts(
        collections.Counter(r for r in reasons if r))
    assert flt.summarize_rejections(rejected, spec) == expected
    # The summary a NoValidHost gives from the population, a key at a
    # time, says the same.
    mask = np.array([r is not None for r in reasons])
    assert flt.summarize_population(population, mask, spec) == expected


class _ZoneCaseBlind(availability_zone_filter.AvailabilityZoneFilter):
    """A port changing the rule without saying what it reads of hosts."""

    def failure(self, host_state, zone):
        zones = {z.lower() for z in availability_zone_filter.host_zones(
            host_state)}
        return None if zone.lower() in zones else 'elsewhere'


def test_a_port_changing_the_failure_alone_runs_host_by_host():
    flt = _ZoneCaseBlind()
    assert not fast_path.trusted(flt, flt.population_twins)
    built_in = availability_zone_filter.AvailabilityZoneFilter()
    assert fast_path.trusted(built_in, built_in.population_twins)


def test_a_bad_request_fails_every_host_with_its_reason():
    class _Refusing(availability_zone_filter.AvailabilityZoneFilter):
        def parse_request(self, spec_obj):
            return rules.Refused('bad zone')

    hosts = [fake_hosts.host('a'), fake_hosts.host('b')]
    spec = fake_hosts.spec()
    flt = _Refusing()
    assert [flt.rejection_reason(h, spec) for h in hosts] == ['bad zone'] * 2
    population = population_mod.Population(hosts)
    assert not flt.filter_population(population, spec).any()
    assert flt.summarize_rejections(hosts, spec) == '2 bad zone'


class _OldStyleFilter(filters.BaseHostFilter):
    """A plug-in's fast method written before ``among`` existed."""

    def host_passes(self, host_state, spec_obj):
        return True

    def filter_population(self, population, spec_obj):
        return True


class _RowsWeigher(weighers.BaseHostWeigher):
    seen = None

    def _weigh_object(self, host_state, weight_properties):
        return 0.0

    def weigh_population(self, population, spec_obj, among=None):
        _RowsWeigher.seen = among.copy()
        return 0.0


def test_fast_methods_get_the_rows_in_play_as_an_argument():
    hosts = [fake_hosts.host('h%d' % i) for i in range(4)]
    population = population_mod.Population(hosts)
    assert not hasattr(population, 'candidates')
    mask = np.array([True, False, True, True])
    trace = []
    kept = fast_path.run_filters([_OldStyleFilter()], population, mask,
                                 fake_hosts.spec(), 0, trace)
    assert kept.tolist() == mask.tolist() and trace[0].fast
    fast_path.weigh([_RowsWeigher()], population, np.array([0, 2]),
                    fake_hosts.spec(), [])
    assert _RowsWeigher.seen.tolist() == [True, False, True, False]
