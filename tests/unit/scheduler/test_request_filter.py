"""Prefilters: each one's rule, its options, and how it explains a
rejection."""

import os_traits
import pytest

from nova_lite.scheduler import population as population_mod
from nova_lite.scheduler import request_filter

from . import fake_hosts
from . import fakes

AZ1 = fake_hosts.aggregate('rack1', availability_zone='az1')
AZ1_BIS = fake_hosts.aggregate('rack2', availability_zone='az1')
AZ2 = fake_hosts.aggregate('rack3', availability_zone='az2')
TENANT = fake_hosts.aggregate('mine', filter_tenant_id='other,project',
                              filter_tenant_id2='x')
GPU = fake_hosts.aggregate('gpu', **{'trait:CUSTOM_GPU': 'required',
                                     'trait:CUSTOM_FAST': 'optional'})
ALL = [AZ1, AZ1_BIS, AZ2, TENANT, GPU]


def _host(name, aggregates=(), traits=()):
    state = fakes.host(name)
    state.provider_aggregates = {agg.uuid for agg in aggregates}
    state.traits = set(traits)
    return state


def _steps(spec, aggregates=ALL):
    return {step.name: step
            for step in request_filter.process_reqspec(spec, aggregates)}


def _spec(**kwargs):
    spec = fake_hosts.spec(**kwargs)
    spec.is_bfv = False
    return spec


def test_only_the_disabled_filter_runs_by_default():
    steps = _steps(_spec())
    assert list(steps) == ['compute_status_filter']
    step = steps['compute_status_filter']
    disabled = _host('off', traits=[os_traits.COMPUTE_STATUS_DISABLED])
    assert step.host_passes(_host('on'), None)
    assert not step.host_passes(disabled, None)
    assert step.rejection_reason(disabled, None) == 'disabled'
    assert step.run_filter_once_per_request


def test_zone_maps_to_its_aggregates():
    step = _steps(_spec(availability_zone='az1'))[
        'map_az_to_placement_aggregate']
    assert step.member_of == {AZ1.uuid, AZ1_BIS.uuid}
    assert step.host_passes(_host('a', [AZ1]), None)
    assert step.host_passes(_host('b', [AZ1_BIS, GPU]), None)
    other = _host('c', [AZ2])
    assert not step.host_passes(other, None)
    assert step.rejection_reason(other, None) == 'not in availability zone ' \
                                                 'az1'
    assert step.summarize_rejections([other, _host('d')], None) == \
        '2 not in availability zone az1'


@pytest.mark.parametrize('zone', [None, 'nova', 'unknown'])
def test_zone_no_aggregate_defines_narrows_nothing(zone):
    assert 'map_az_to_placement_aggregate' not in _steps(
        _spec(availability_zone=zone))


def test_zone_prefilter_can_be_turned_off(conf):
    conf.config(group='scheduler', query_placement_for_availability_zone=False)
    assert 'map_az_to_placement_aggregate' not in _steps(
        _spec(availability_zone='az1'))


def test_image_type_support(conf):
    spec = _spec(image={})
    spec.image.disk_format = 'qcow2'
    assert 'require_image_type_support' not in _steps(spec)
    conf.config(group='scheduler',
                query_placement_for_image_type_support=True)
    step = _steps(spec)['require_image_type_support']
    assert step.required_traits == {'COMPUTE_IMAGE_TYPE_QCOW2'}
    raw_only = _host('r', traits=['COMPUTE_IMAGE_TYPE_RAW'])
    assert step.rejection_reason(raw_only, None) == \
        'lack COMPUTE_IMAGE_TYPE_QCOW2'
    assert step.host_passes(_host('q', traits=['COMPUTE_IMAGE_TYPE_QCOW2',
                                               'COMPUTE_NODE']), None)
    # A format without a trait, or a volume-backed server: no constraint.
    spec.image.disk_format = 'weird'
    assert 'require_image_type_support' not in _steps(spec)
    spec.image.disk_format = 'qcow2'
    spec.is_bfv = True
    assert 'require_image_type_support' not in _steps(spec)


def test_tenant_isolation(conf):
    conf.config(group='scheduler', limit_tenants_to_placement_aggregate=True)
    step = _steps(_spec(project_id='project'))['require_tenant_aggregate']
    assert step.member_of == {TENANT.uuid}
    assert step.host_passes(_host('t', [TENANT]), None)
    assert step.rejection_reason(_host('u'), None) == \
        'not in an aggregate of project project'
    # A project no aggregate names goes anywhere...
    assert 'require_tenant_aggregate' not in _steps(_spec(project_id='p9'))
    # ... unless an aggregate is required.
    conf.config(group='scheduler',
                placement_aggregate_required_for_tenants=True)
    step = _steps(_spec(project_id='p9'))['require_tenant_aggregate']
    assert not step.host_passes(_host('t', [TENANT]), None)
    assert step.summarize_rejections([_host('a'), _host('b')], None) == \
        '2 no aggregate is for project p9'


def test_tenant_isolation_is_off_by_default():
    assert 'require_tenant_aggregate' not in _steps(_spec(
        project_id='project'))


def test_isolated_aggregates(conf):
    conf.config(group='scheduler', enable_isolated_aggregate_filtering=True)
    plain = _steps(_spec())['isolate_aggregates']
    assert plain.forbidden_aggregates == {GPU.uuid}
    in_gpu = _host('g', [GPU])
    assert plain.rejection_reason(in_gpu, None) == \
        'in isolated aggregate gpu'
    assert plain.host_passes(_host('p', [AZ1]), None)
    # Requiring the aggregate's trait (flavor or image) lets it in.
    wanting = _spec(extra_specs={'trait:CUSTOM_GPU': 'required'})
    assert 'isolate_aggregates' not in _steps(wanting)
    image = fake_hosts.SpecWithExtras(_spec(), image=_Image(['CUSTOM_GPU']))
    assert 'isolate_aggregates' not in _steps(image)
    assert _steps(image)['required_traits'].required_traits == {
        'CUSTOM_GPU'}


class _Image:
    """An image whose properties have the traits_required field
    ImageMetaProps is to get (Nova's; see the report of issue 4)."""

    def __init__(self, traits):
        self.properties = {'traits_required': traits}

    def obj_attr_is_set(self, name):
        return name == 'properties'


def test_flavor_traits_required_and_forbidden():
    spec = _spec(extra_specs={'trait:CUSTOM_X': 'required',
                              'trait:HW_CPU_X86_AVX': 'forbidden',
                              'trait:CUSTOM_Y': 'whatever',
                              'hw:cpu_policy': 'dedicated'})
    step = _steps(spec)['required_traits']
    assert step.required_traits == {'CUSTOM_X'}
    assert step.forbidden_traits == {'HW_CPU_X86_AVX'}
    assert step.host_passes(_host('ok', traits=['CUSTOM_X']), None)
    assert step.rejection_reason(_host('no'), None) == 'lack CUSTOM_X'
    assert step.rejection_reason(
        _host('avx', traits=['CUSTOM_X', 'HW_CPU_X86_AVX']), None) == \
        'have HW_CPU_X86_AVX'


def test_prefilters_run_in_nova_order(conf):
    conf.config(group='scheduler', limit_tenants_to_placement_aggregate=True,
                enable_isolated_aggregate_filtering=True,
                query_placement_for_image_type_support=True)
    spec = _spec(project_id='project', availability_zone='az2',
                 extra_specs={'trait:CUSTOM_X': 'required'}, image={})
    spec.image.disk_format = 'raw'
    assert [s.name for s in request_filter.process_reqspec(spec, ALL)] == [
        'require_tenant_aggregate', 'map_az_to_placement_aggregate',
        'require_image_type_support', 'compute_status_filter',
        'isolate_aggregates', 'required_traits']


def test_population_answer_leaves_the_trait_column_alone():
    """A required trait's answer is the kept trait column's copy (the
    first term of an AND is copied, not combined with True): writing
    to it, as a pool is written to, must not change the next answer."""
    hosts = [_host('a', traits=['CUSTOM_X']), _host('b'),
             _host('c', traits=['CUSTOM_X'])]
    population = population_mod.Population(hosts)
    step = request_filter.Prefilter('x', required_traits=['CUSTOM_X'])
    passed = step.filter_population(population, None)
    assert passed.dtype == bool and list(passed) == [True, False, True]
    passed[:] = False
    assert list(step.filter_population(population, None)) == [
        True, False, True]
    both = request_filter.Prefilter(
        'y', required_traits=['CUSTOM_X'], forbidden_traits=['CUSTOM_X'])
    assert list(both.filter_population(population, None)) == [False] * 3
    assert request_filter.Prefilter('z').filter_population(
        population, None) is True
