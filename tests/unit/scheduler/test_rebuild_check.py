"""A rebuild asks whether the instance's host still suits the new image
(scheduler hint ``_nova_check_type`` "rebuild"): only the filters Nova
marks RUN_ON_REBUILD run, with no placement step and no claim."""

import random

import pytest

from nova_lite import exception
from nova_lite import objects
from nova_lite.scheduler import filter_scheduler
from nova_lite.scheduler import filters
from nova_lite.scheduler import utils
from nova_lite.scheduler.filters import image_props_filter
from nova_lite.scheduler.filters import ram_filter

from . import fakes

UUID = '00000000-0000-4000-8000-000000000001'

# Nova's filters that run on a rebuild; every other built-in does not.
RUN_ON_REBUILD = {'ImagePropertiesFilter', 'IsolatedHostsFilter',
                  'AggregateImagePropertiesIsolation', 'NUMATopologyFilter'}


def test_run_on_rebuild_as_nova_defines_it():
    found = {cls.__name__: cls.RUN_ON_REBUILD
             for cls in filters.all_filters()}
    assert {name for name, run in found.items() if run} == RUN_ON_REBUILD
    assert filters.BaseHostFilter.RUN_ON_REBUILD is False


def test_metrics_filter_runs_for_every_instance():
    from nova_lite.scheduler.filters import metrics_filter
    assert not metrics_filter.MetricsFilter.run_filter_once_per_request


@pytest.mark.parametrize('hints,expected', [
    ({}, False),
    ({'_nova_check_type': ['rebuild']}, True),
    ({'_nova_check_type': ['resize']}, False),
])
def test_request_is_rebuild(hints, expected):
    assert utils.request_is_rebuild(fakes.spec(scheduler_hints=hints)) \
        is expected


def _rebuild_spec(image_props, memory_mb=4096):
    spec = fakes.spec(memory_mb=memory_mb,
                      scheduler_hints={'_nova_check_type': ['rebuild']},
                      force_hosts=['full'])
    spec.image = objects.ImageMeta.from_image(
        {'id': UUID, 'properties': image_props})
    return spec


def _scheduler(whole_population):
    return filter_scheduler.FilterScheduler(
        [ram_filter.RamFilter(), image_props_filter.ImagePropertiesFilter()],
        [], rng=random.Random(0), whole_population=whole_population)


def _full_host():
    # No RAM left: the RAM filter and placement would both refuse it,
    # but a rebuild keeps the instance's allocation there.
    host = fakes.host('full', memory_mb=2048, used={'MEMORY_MB': 2048})
    host.cpu_info = '{"arch": "x86_64"}'
    return host


@pytest.mark.parametrize('whole_population', [True, False])
def test_rebuild_runs_only_rebuild_filters_and_claims_nothing(
        whole_population):
    claimer = fakes.FakeClaimer()
    host = _full_host()
    result = _scheduler(whole_population).select_destinations(
        _rebuild_spec({'hw_architecture': 'x86_64'}), [host, fakes.host()],
        [UUID], claimer)
    assert [s.service_host for s in result[0]] == ['full']
    assert claimer.claims == [] and claimer.released == []
    assert host.free_ram_mb == 0


@pytest.mark.parametrize('whole_population', [True, False])
def test_rebuild_with_an_image_the_host_cannot_run(whole_population):
    claimer = fakes.FakeClaimer()
    with pytest.raises(exception.NoValidHost) as caught:
        _scheduler(whole_population).select_destinations(
            _rebuild_spec({'hw_architecture': 'aarch64'}), [_full_host()],
            [UUID], claimer)
    assert 'ImagePropertiesFilter: 1 -> 0' in caught.value.format_message()
    assert claimer.claims == [] and claimer.released == []


def test_without_the_hint_the_full_host_is_refused():
    spec = _rebuild_spec({'hw_architecture': 'x86_64'})
    spec.scheduler_hints = {}
    with pytest.raises(exception.NoValidHost):
        _scheduler(True).select_destinations(
            spec, [_full_host()], [UUID], fakes.FakeClaimer())
