"""ComputeCapabilitiesFilter: scopes, paths into cpu_info and stats."""

import json

import pytest

from nova_lite.scheduler.filters import compute_capabilities_filter as ccf

from .. import fake_hosts

CPU_INFO = json.dumps({'arch': 'x86_64', 'model': 'fake-cpu',
                       'features': ['aes', 'mmx', 'sse2'],
                       'topology': {'sockets': 2, 'cores': 8}})


def _host(**attrs):
    attrs.setdefault('cpu_info', CPU_INFO)
    attrs.setdefault('hypervisor_type', 'QEMU')
    attrs.setdefault('hypervisor_version', 1005003)
    return fake_hosts.host(**attrs)


def _passes(specs, host=None):
    flt = ccf.ComputeCapabilitiesFilter()
    return flt.host_passes(host or _host(), fake_hosts.spec(
        extra_specs=specs))


@pytest.mark.parametrize('specs,expected', [
    ({}, True),
    ({'capabilities:hypervisor_type': 's== QEMU'}, True),
    ({'capabilities:hypervisor_type': 's== ironic'}, False),
    ({'capabilities:hypervisor_version': '>= 1005003'}, True),
    ({'capabilities:hypervisor_version': '== 2000000'}, False),
    ({'capabilities:free_ram_mb': '>= 4096'}, True),
    ({'capabilities:free_ram_mb': '>= 32768'}, False),
    ({'capabilities:vcpus_total': '= 8'}, True),
    ({'capabilities:host': '<in> host'}, True),
    ({'capabilities:cpu_info:arch': 'x86_64'}, True),
    ({'capabilities:cpu_info:arch': 's== aarch64'}, False),
    ({'capabilities:cpu_info:features': '<all-in> aes mmx'}, True),
    ({'capabilities:cpu_info:features': '<all-in> aes avx'}, False),
    ({'capabilities:cpu_info:topology:sockets': '>= 2'}, True),
    ({'capabilities:cpu_info:model': '<or> a <or> fake-cpu'}, True),
])
def test_capability_requirements(specs, expected):
    assert _passes(specs) is expected


def test_missing_capability_fails():
    assert not _passes({'capabilities:cpu_info:vendor': 'intel'})
    assert not _passes({'capabilities:no_such_thing': '1'})


def test_path_into_text_that_is_not_json_fails():
    assert not _passes({'capabilities:cpu_info:arch': 'x86_64'},
                       _host(cpu_info='not json'))


def test_other_scopes_are_ignored():
    assert _passes({'hw:cpu_policy': 'dedicated',
                    'trait:HW_CPU_X86_AVX': 'required',
                    'aggregate_instance_extra_specs:ssd': 'true',
                    'resources:VGPU': '1'})


def test_unscoped_key_checked_only_when_host_has_it():
    # num_instances is a host attribute: checked (backward compatibility).
    assert _passes({'num_instances': '<= 10'})
    assert not _passes({'num_instances': '>= 10'})
    # Not an attribute or stat: ignored, left to other filters.
    assert _passes({'ssd': 'true'})


def test_stats_are_a_fallback_for_missing_attributes():
    host = _host(stats={'gpu_model': 'A100', 'hypervisor_type': 'xen'})
    assert _passes({'capabilities:gpu_model': 's== A100'}, host)
    assert _passes({'gpu_model': 's== A100'}, host)
    # An attribute wins over the stat of the same name.
    assert _passes({'capabilities:hypervisor_type': 's== QEMU'}, host)


def test_rejection_reason_names_the_failing_spec():
    flt = ccf.ComputeCapabilitiesFilter()
    spec = fake_hosts.spec(extra_specs={
        'capabilities:hypervisor_type': 's== ironic'})
    assert (flt.rejection_reason(_host(), spec)
            == 'fail capabilities:hypervisor_type=s== ironic')
    hosts = [_host() for _ in range(3)]
    assert (flt.summarize_rejections(hosts, spec)
            == '3 fail capabilities:hypervisor_type=s== ironic')


def test_runs_once_per_request():
    assert ccf.ComputeCapabilitiesFilter.run_filter_once_per_request
