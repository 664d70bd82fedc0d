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


def test_maxphysaddr_bits_is_a_cpu_requirement():
    # Issue 11, case 6: Nova checks hw:maxphysaddr_bits=N as
    # capabilities:cpu_info:maxphysaddr:bits >= N.
    cpu = json.dumps({'arch': 'x86_64',
                      'maxphysaddr': {'mode': 'emulate', 'bits': 46}})
    host = _host(cpu_info=cpu)
    assert _passes({'hw:maxphysaddr_bits': '42'}, host)
    assert _passes({'hw:maxphysaddr_bits': '46'}, host)
    assert not _passes({'hw:maxphysaddr_bits': '48'}, host)
    # A host that does not report the size cannot show it has enough.
    assert not _passes({'hw:maxphysaddr_bits': '42'})
    flt = ccf.ComputeCapabilitiesFilter()
    spec = fake_hosts.spec(extra_specs={'hw:maxphysaddr_bits': '48'})
    assert (flt.rejection_reason(host, spec)
            == 'fail hw:maxphysaddr_bits=>= 48')


def test_paths_start_only_at_capabilities_nova_names():
    # Issue 11, case 7: the scheduler's own attributes are not
    # capabilities (Nova's extra spec validation names the ones that
    # are): capabilities:service:disabled finds nothing, so it fails.
    host = _host()
    assert host.service is not None
    assert not _passes({'capabilities:service:disabled': 'False'}, host)
    assert not _passes({'capabilities:service_up': 'True'}, host)
    assert not _passes({'capabilities:consume': '<in> bound'}, host)
    # Unscoped, such a name is not a capability of the host: ignored.
    assert _passes({'service': 'anything'}, host)
    # A stat of that name is still found, as other unknown names are.
    host = _host(stats={'service': 'gold'})
    assert _passes({'capabilities:service': 's== gold'}, host)


def test_not_run_on_rebuild():
    assert ccf.ComputeCapabilitiesFilter.RUN_ON_REBUILD is False
