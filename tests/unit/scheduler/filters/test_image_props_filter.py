"""ImagePropertiesFilter: architecture, hypervisor type and version, VM
mode, old property names."""

import json

import pytest

from nova_lite.scheduler.filters import image_props_filter as ipf

from .. import fake_hosts


def _host(arch='x86_64', hv_type='qemu', version=6002):
    return fake_hosts.host(cpu_info=json.dumps({'arch': arch}),
                           hypervisor_type=hv_type,
                           hypervisor_version=version)


def _passes(image, host=None):
    return ipf.ImagePropertiesFilter().host_passes(
        host or _host(), fake_hosts.spec(image=image))


@pytest.mark.parametrize('image,expected', [
    ({}, True),
    ({'hw_architecture': 'x86_64'}, True),
    ({'hw_architecture': 'aarch64'}, False),
    ({'hw_architecture': 'amd64'}, True),        # canonicalized
    ({'img_hv_type': 'qemu'}, True),
    ({'img_hv_type': 'kvm'}, True),              # qemu serves both
    ({'img_hv_type': 'xen'}, False),
    ({'hw_vm_mode': 'hvm'}, True),
    ({'hw_vm_mode': 'HV'}, True),                # old spelling of hvm
    ({'hw_vm_mode': 'exe'}, False),
    ({'hw_architecture': 'x86_64', 'img_hv_type': 'xen'}, False),
    # Pre-Liberty names, mapped when the image is read.
    ({'architecture': 'aarch64'}, False),
    ({'hypervisor_type': 'qemu', 'vm_mode': 'hvm'}, True),
])
def test_supported_instances(image, expected):
    assert _passes(image) is expected


def test_no_image_passes():
    assert ipf.ImagePropertiesFilter().host_passes(
        _host(), fake_hosts.spec())


# Nova reads every operand as a version (a plain integer too) and the
# host's packed 6002 as 6.2; issue 11, case 5.
@pytest.mark.parametrize('requirement,expected', [
    ('>=6000', False), ('>= 6003', False), ('== 6002', False),
    ('< 6002', True), ('>= 6.2', True), ('>= 6.3', False),
    ('>= 6.0, < 7.0', True), ('>= 6.0, < 6.1', False),
    ('>= 6.2, < 7', True), ('< 7', True), ('== 6.2.0', True),
])
def test_requested_hypervisor_version(requirement, expected):
    assert _passes({'hw_architecture': 'x86_64',
                    'img_hv_requested_version': requirement}) is expected


def test_requested_version_alone_is_not_checked():
    # Nova checks the version only against the supported instances that
    # match a named architecture, hypervisor type or VM mode; issue 11,
    # case 4: an image with only a version requirement passes.
    assert _passes({'img_hv_requested_version': '>= 7.0'})
    assert not _passes({'img_hv_type': 'qemu',
                        'img_hv_requested_version': '>= 7.0'})


def test_old_name_of_requested_version():
    assert not _passes({'architecture': 'x86_64',
                        'hypervisor_version_requires': '>= 7.0'})


def test_host_without_version_passes_any_requirement():
    assert _passes({'img_hv_requested_version': '>= 7000'},
                   _host(version=None))


def test_bad_version_requirement_rejects_with_reason():
    flt = ipf.ImagePropertiesFilter()
    spec = fake_hosts.spec(image={'hw_vm_mode': 'hvm',
                                  'img_hv_requested_version': 'newest'})
    assert not flt.host_passes(_host(), spec)
    assert flt.rejection_reason(_host(), spec).startswith(
        'bad img_hv_requested_version')


def test_default_architecture_applies_to_images_naming_none(conf):
    # Issue 11, case 3: with the option at x86_64, an image without an
    # architecture fails an aarch64-only host in Nova.
    arm = _host(arch='aarch64')
    assert _passes({}, arm)
    conf.config(group='filter_scheduler',
                image_properties_default_architecture='x86_64')
    assert not _passes({}, arm)
    assert _passes({}, _host(arch='x86_64'))
    assert _passes({'hw_architecture': 'aarch64'}, arm)
    # No image at all (volume-backed): Nova reads empty properties, so
    # the default applies too.
    assert not ipf.ImagePropertiesFilter().host_passes(
        arm, fake_hosts.spec())


def test_default_architecture_choices(conf):
    with pytest.raises(ValueError):
        conf.config(group='filter_scheduler',
                    image_properties_default_architecture='pdp11')


def test_wanted_values_match_anywhere_in_a_supported_instance():
    # Nova looks each wanted value up in the whole (arch, hv, mode)
    # triple: "xen" as a VM mode matches a host offering the xen
    # hypervisor with HVM guests.
    host = _host()
    host.supported_instances = [('x86_64', 'xen', 'hvm')]
    assert _passes({'hw_vm_mode': 'xen'}, host)
    assert not _passes({'hw_vm_mode': 'exe'}, host)


def test_reported_supported_instances_win():
    host = _host()
    host.supported_instances = [('aarch64', 'xen', 'xen')]
    assert _passes({'hw_architecture': 'aarch64', 'hw_vm_mode': 'pv'}, host)
    assert not _passes({'hw_architecture': 'x86_64'}, host)


def test_host_without_arch_rejects_arch_requirement():
    host = fake_hosts.host(cpu_info='{}', hypervisor_type='qemu')
    assert not _passes({'hw_architecture': 'x86_64'}, host)
    assert _passes({'img_hv_type': 'qemu'}, host)


def test_rejection_reasons():
    flt = ipf.ImagePropertiesFilter()
    spec = fake_hosts.spec(image={'hw_architecture': 'ppc64le',
                                  'img_hv_requested_version': '>= 1'})
    assert flt.rejection_reason(_host(), spec) == 'cannot run ppc64le/*/*'
    spec = fake_hosts.spec(image={'hw_vm_mode': 'hvm',
                                  'img_hv_requested_version': '>= 7.0'})
    assert (flt.rejection_reason(_host(), spec)
            == 'hypervisor version does not meet >= 7.0')
    assert flt.rejection_reason(_host(), fake_hosts.spec(image={})) is None


def test_version_satisfied_unpacks_like_nova():
    assert ipf.version_satisfied('== 1.5.3', 1005003)
    assert ipf.version_satisfied('> 1.5', 1005003)
    with pytest.raises(ValueError):
        ipf.version_satisfied('~= 1', 1)
