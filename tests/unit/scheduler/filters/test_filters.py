"""The filter contract, the handler that runs filters, and loading."""

import collections

import pytest

from nova_lite import exception
from nova_lite.scheduler import filters
from nova_lite.scheduler.filters import compute_filter
from nova_lite.scheduler.filters import ram_filter

from .. import fakes

BUILT_INS = {
    'AllHostsFilter', 'ComputeFilter', 'ComputeCapabilitiesFilter',
    'ImagePropertiesFilter', 'AggregateInstanceExtraSpecsFilter',
    'AggregateImagePropertiesIsolation', 'AggregateMultiTenancyIsolation',
    'AggregateTypeAffinityFilter', 'AggregateIoOpsFilter',
    'AggregateNumInstancesFilter', 'IoOpsFilter', 'NumInstancesFilter',
    'IsolatedHostsFilter', 'JsonFilter', 'MetricsFilter',
    'NUMATopologyFilter', 'PciPassthroughFilter', 'SameHostFilter',
    'DifferentHostFilter', 'SimpleCIDRAffinityFilter',
    'ServerGroupAffinityFilter', 'ServerGroupAntiAffinityFilter',
    'RamFilter', 'CoreFilter', 'DiskFilter', 'AggregateRamFilter',
    'AggregateCoreFilter', 'AggregateDiskFilter', 'AvailabilityZoneFilter',
    'RetryFilter', 'GroupAffinityFilter', 'GroupAntiAffinityFilter'}


class AcmeFilter(filters.BaseHostFilter):
    """A custom filter, named by its class path in available_filters."""

    def host_passes(self, host_state, spec_obj):
        return host_state.host != 'bad'


class NotAFilter:
    pass


def acme_filters():
    return [AcmeFilter]


class _Named(filters.BaseHostFilter):
    """Keeps hosts whose name is in ``keep``; says 'not kept' otherwise."""

    def __init__(self, keep, once=False):
        self.keep = set(keep)
        self.run_filter_once_per_request = once
        self.calls = 0

    def host_passes(self, host_state, spec_obj):
        self.calls += 1
        return host_state.host in self.keep

    def rejection_reason(self, host_state, spec_obj):
        return 'not kept'


def _hosts(*names):
    return [fakes.host(name) for name in names]


# The contract

def test_filter_all_keeps_passing_hosts_in_order():
    hosts = _hosts('a', 'b', 'c', 'd')
    kept = _Named({'d', 'b'}).filter_all(hosts, fakes.spec())
    assert [h.host for h in kept] == ['b', 'd']


def test_run_filter_for_index():
    assert _Named((), once=False).run_filter_for_index(3)
    assert _Named((), once=True).run_filter_for_index(0)
    assert not _Named((), once=True).run_filter_for_index(1)


def test_default_summary_counts_reasons_commonest_first():
    class Reasons(filters.BaseHostFilter):
        def rejection_reason(self, host_state, spec_obj):
            return host_state.host.split('-')[0]

    names = (['down-%d' % i for i in range(5)] + ['disabled-1'] +
             ['x-1', 'y-1', 'z-1', 'z-2'])
    summary = Reasons().summarize_rejections(_hosts(*names), fakes.spec())
    assert summary == '5 down, 2 z, 1 disabled, 2 other'


def test_default_summary_without_reasons_is_empty():
    class Silent(filters.BaseHostFilter):
        pass

    assert Silent().summarize_rejections(_hosts('a'), fakes.spec()) == ''


def test_format_shortfall_clamps_negative_best():
    assert (filters.format_shortfall(30, 32768, 16384.0, 'MB')
            == '30 need 32768 MB, best has 16384 MB')
    assert (filters.format_shortfall(2, 4, -3.5, 'VCPU')
            == '2 need 4 VCPU, best has 0 VCPU')
    assert (filters.format_shortfall(1, 2, 1.5, 'VCPU')
            == '1 need 2 VCPU, best has 1.5 VCPU')


def test_step_describes_counts_and_reasons():
    hosts = _hosts('a', 'b', 'c')
    step = filters.FilterStep(_Named({'a'}), hosts, hosts[:1])
    assert step.describe(fakes.spec()) == '_Named: 3 -> 1 (2 not kept)'
    assert [h.host for h in step.rejected()] == ['b', 'c']


def test_step_without_rejections_gives_counts_only():
    hosts = _hosts('a')
    step = filters.FilterStep(_Named({'a'}), hosts, hosts)
    assert step.describe(fakes.spec()) == '_Named: 1 -> 1'


def test_step_survives_a_failing_summary():
    class Broken(filters.BaseHostFilter):
        def summarize_rejections(self, host_states, spec_obj):
            raise RuntimeError('boom')

    hosts = _hosts('a')
    step = filters.FilterStep(Broken(), hosts, [])
    assert step.describe(fakes.spec()) == 'Broken: 1 -> 0'


# The handler

def test_handler_runs_filters_in_order_and_records_steps():
    hosts = _hosts('a', 'b', 'c')
    first, second = _Named({'a', 'b'}), _Named({'b', 'c'})
    trace = []
    kept = filters.HostFilterHandler().get_filtered_objects(
        [first, second], hosts, fakes.spec(), trace=trace)
    assert [h.host for h in kept] == ['b']
    assert [(len(s.hosts_in), len(s.hosts_out)) for s in trace] == [
        (3, 2), (2, 1)]
    assert second.calls == 2


def test_handler_stops_at_the_first_empty_result():
    hosts = _hosts('a')
    later = _Named({'a'})
    trace = []
    kept = filters.HostFilterHandler().get_filtered_objects(
        [_Named(()), later], hosts, fakes.spec(), trace=trace)
    assert kept == []
    assert later.calls == 0
    assert len(trace) == 1


def test_handler_skips_once_per_request_filters_after_first_instance():
    hosts = _hosts('a', 'b')
    once = _Named({'a'}, once=True)
    kept = filters.HostFilterHandler().get_filtered_objects(
        [once], hosts, fakes.spec(), index=1)
    assert len(kept) == 2
    assert once.calls == 0


# Loading

def test_all_filters_are_the_built_ins():
    assert {cls.__name__ for cls in filters.all_filters()} == BUILT_INS


def test_default_config_enables_novas_default_filters():
    loaded = filters.HostFilterHandler().load_enabled_filters()
    assert [type(f).__name__ for f in loaded] == [
        'ComputeFilter', 'ComputeCapabilitiesFilter',
        'ImagePropertiesFilter', 'ServerGroupAntiAffinityFilter',
        'ServerGroupAffinityFilter']
    assert isinstance(loaded[0], compute_filter.ComputeFilter)


def test_every_built_in_states_its_rule_and_can_explain():
    for cls in filters.all_filters():
        assert cls.__doc__ and len(cls.__doc__) > 30, cls
        assert cls.__module__.startswith('nova_lite.scheduler.filters.')
        if cls.__name__ != 'AllHostsFilter':
            assert (cls.rejection_reason
                    is not filters.BaseHostFilter.rejection_reason), cls


def test_enabled_filters_by_entry_point_name_in_order(conf):
    conf.config(group='filter_scheduler',
                enabled_filters=['RamFilter', 'ComputeFilter'])
    loaded = filters.HostFilterHandler().load_enabled_filters()
    assert [type(f) for f in loaded] == [ram_filter.RamFilter,
                                         compute_filter.ComputeFilter]


def test_custom_filter_by_class_path(conf):
    conf.config(group='filter_scheduler',
                available_filters=['nova_lite.scheduler.filters.all_filters',
                                   __name__ + '.AcmeFilter'],
                enabled_filters=['ComputeFilter', 'AcmeFilter'])
    loaded = filters.HostFilterHandler().load_enabled_filters()
    assert [type(f).__name__ for f in loaded] == ['ComputeFilter',
                                                  'AcmeFilter']
    assert isinstance(loaded[1], AcmeFilter)


def test_available_filters_may_name_a_function_returning_classes():
    classes = filters.HostFilterHandler().get_matching_classes(
        [__name__ + '.acme_filters', 'RamFilter'])
    assert classes == [AcmeFilter, ram_filter.RamFilter]


def test_custom_filter_is_unavailable_unless_listed(conf):
    conf.config(group='filter_scheduler', enabled_filters=['AcmeFilter'])
    with pytest.raises(exception.SchedulerHostFilterNotFound) as info:
        filters.HostFilterHandler().load_enabled_filters()
    message = info.value.format_message()
    assert 'AcmeFilter' in message
    assert 'ComputeFilter' in message  # what is available


def test_unknown_enabled_filter_is_an_error():
    with pytest.raises(exception.SchedulerHostFilterNotFound) as info:
        filters.HostFilterHandler().load_enabled_filters(
            enabled=['ComputeFilter', 'RamFlter'])
    assert 'RamFlter' in info.value.format_message()


@pytest.mark.parametrize('path', ['nowhere.Filter', 'NoSuchFilter',
                                  __name__ + '.Missing',
                                  __name__ + '.NotAFilter',
                                  __name__ + '.BUILT_INS'])
def test_unloadable_available_filter_is_an_error(path):
    with pytest.raises(exception.SchedulerHostFilterNotFound) as info:
        filters.HostFilterHandler().get_matching_classes([path])
    assert path in info.value.format_message()


def test_duplicates_load_once():
    classes = filters.HostFilterHandler().get_matching_classes(
        ['RamFilter', 'nova_lite.scheduler.filters.ram_filter.RamFilter',
         'nova_lite.scheduler.filters.all_filters'])
    counts = collections.Counter(classes)
    assert counts[ram_filter.RamFilter] == 1
    assert len(classes) == len(BUILT_INS)
