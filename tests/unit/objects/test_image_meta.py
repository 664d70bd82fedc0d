"""ImageMetaProps: property parsing and the 1.1 backport."""

from nova_lite import objects


def test_legacy_names_and_required_traits_are_parsed():
    props = objects.ImageMetaProps.from_dict({
        'architecture': 'aarch64', 'trait:CUSTOM_GPU': 'required',
        'trait:HW_CPU_X86_AVX2': 'forbidden', 'unknown': 'x'})
    assert props.hw_architecture == 'aarch64'
    assert props.traits_required == ['CUSTOM_GPU']
    assert props.get('unknown') is None


def test_backport_to_1_0_drops_required_traits():
    meta = objects.ImageMeta.from_image({
        'id': '0cdb5e2c-52d8-4c25-8a3f-6c4a3e6f1a6b', 'name': 'img',
        'properties': {'trait:CUSTOM_GPU': 'required',
                       'hw_architecture': 'x86_64'}})
    primitive = meta.obj_to_primitive(target_version='1.0')
    props = primitive['nova_lite_object.data']['properties']
    assert props['nova_lite_object.version'] == '1.0'
    assert props['nova_lite_object.data'] == {'hw_architecture': 'x86_64'}
    back = objects.ImageMeta.obj_from_primitive(primitive)
    assert not back.properties.obj_attr_is_set('traits_required')


def test_numa_properties_are_parsed_and_dropped_for_1_0():
    meta = objects.ImageMeta.from_image({
        'id': '0cdb5e2c-52d8-4c25-8a3f-6c4a3e6f1a6b', 'name': 'img',
        'properties': {'hw_mem_page_size': '2MB',
                       'hw_cpu_thread_policy': 'isolate',
                       'hw_pci_numa_affinity_policy': 'required',
                       'os_type': 'linux'}})
    assert meta.properties.get('hw_mem_page_size') == '2MB'
    primitive = meta.obj_to_primitive(target_version='1.0')
    props = primitive['nova_lite_object.data']['properties']
    assert props['nova_lite_object.data'] == {'os_type': 'linux'}


def test_to_dict_and_get_answer_as_obj_attr_is_set():
    """to_dict and get ask for the set fields' attributes directly:
    they must answer as obj_attr_is_set says, set, unset and reset."""
    props = objects.ImageMetaProps.from_dict({
        'os_distro': 'ubuntu', 'os_require_quiesce': 'yes',
        'trait:CUSTOM_GPU': 'required'})
    props.hw_numa_nodes = 2
    expected = {name: getattr(props, name) for name in props.fields
                if props.obj_attr_is_set(name)}
    assert props.to_dict() == expected == {
        'os_distro': 'ubuntu', 'os_require_quiesce': True,
        'traits_required': ['CUSTOM_GPU'], 'hw_numa_nodes': 2}
    for name in props.fields:
        assert props.get(name, 'unset') == (
            getattr(props, name) if props.obj_attr_is_set(name)
            else 'unset')
    props.obj_reset_changes()
    del props.os_distro
    assert 'os_distro' not in props.to_dict()
    assert props.get('os_distro', 'x') == 'x'
    assert objects.ImageMetaProps().to_dict() == {}
