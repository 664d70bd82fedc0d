"""Every object's fields are pinned to its version.

Changing a field without bumping VERSION (and adding a history line and an
obj_make_compatible clause) fails test_versions: update the hash below only
together with the bump.
"""

from oslo_versionedobjects import fixture

from nova_lite.objects import base

OBJECT_VERSIONS = {
    'Aggregate': '1.0-4c0c125078b90709e76a8befc594ae7c',
    'AggregateList': '1.0-77bd31eb822ae6cbacbcaef4846d9574',
    'ComputeNode': '1.1-354fefbd17f65e1c434f3d4de232a73c',
    'ComputeNodeList': '1.1-0af4f34ce7ae10a660feb1ec41d04900',
    'Flavor': '1.0-6921208b92c50d4db65f08f60f52e482',
    'FlavorList': '1.0-43ec22e4c639901068fb4189cd4de4eb',
    'Image': '1.0-9c45615b16bc42ebfcdc1fb6ed571394',
    'ImageMeta': '1.1-fd8fef4ce82e70836372b3ab90a4c1a6',
    'ImageMetaProps': '1.1-776048c6ece603e8017f9d5cc6af8a88',
    'Instance': '1.3-aef8895f40c190881099612e8922bc5e',
    'InstanceAction': '1.0-2bd337f69f4fc7cfb02c68fb4b4ed1d9',
    'InstanceActionEvent': '1.0-a6b0dfdf624370db05a8361673589ee1',
    'InstanceActionEventList': '1.0-7cebd9f5006274b9e9fcba63d7f5b115',
    'InstanceActionList': '1.0-f802104929a59217668753653c12b4b1',
    'InstanceFault': '1.0-273d71c161f99d4abee6c7ed77e107cb',
    'InstanceGroup': '1.0-fbc847f66a082ab410366ba389dec3ea',
    'InstanceGroupList': '1.0-be18078220513316abd0ae1b2d916873',
    'InstanceList': '1.3-deb3d72033789ea40229ca58ca09313c',
    'KeyPair': '1.0-2a2df987bd46d65168d74989d0aee3a1',
    'KeyPairList': '1.0-72e09f0c365474cdaa0e1d7aa1d93b2b',
    'Migration': '1.0-8518d12c8c737000656604ae4ce0b20d',
    'MigrationList': '1.0-8f1752a5588a029c8a2234a0a5872124',
    'Quotas': '1.0-db0f4bbbd576c32d6132ac2ca2d8bed0',
    'RequestSpec': '1.2-ddb146fd534112d6296fde0e08b04ef4',
    'SchedulerRetries': '1.0-842099775ad19981c5dd0b1b006f2e3e',
    'Selection': '1.0-fad5b825936250a6210785d905eaa60e',
    'Service': '1.0-3f8fd46a2af22b2a1551372eaa9001df',
    'ServiceList': '1.0-f6621975c20e5805eb2b67dec3679efc',
    'Tag': '1.0-2d774ada4a6b68f589601200cd1669f3',
    'TagList': '1.0-e16d65894484b7530b720792ffbbbd02',
}


def _checker():
    return fixture.ObjectVersionChecker(
        base.NovaLiteObjectRegistry.obj_classes())


def test_versions():
    expected, actual = _checker().test_hashes(OBJECT_VERSIONS)
    assert expected == actual, (
        'Objects changed; bump their VERSION and history, then update '
        'OBJECT_VERSIONS: %s' % sorted(set(expected) ^ set(actual)
                                       | {k for k in expected
                                          if expected[k] != actual.get(k)}))


def test_every_object_has_a_history_line_for_its_version():
    import inspect
    for name, classes in base.NovaLiteObjectRegistry.obj_classes().items():
        source = inspect.getsource(classes[0])
        assert '# Version %s:' % classes[0].VERSION in source, name


def test_list_objects_name_their_child_version():
    for name, classes in base.NovaLiteObjectRegistry.obj_classes().items():
        cls = classes[0]
        if not issubclass(cls, base.ObjectListBase):
            continue
        child = cls.fields['objects']._type._element_type._type._obj_name
        child_version = base.NovaLiteObjectRegistry.obj_classes()[
            child][0].VERSION
        import inspect
        assert '%s <= %s' % (child, child_version) in inspect.getsource(cls), \
            name


def test_serializer_round_trip_keeps_context():
    from nova_lite import context as nl_context
    from nova_lite import objects
    from nova_lite import rpc
    ctxt = nl_context.RequestContext(user_id='u', project_id='p')
    serializer = rpc.RequestContextSerializer(
        base.NovaLiteObjectSerializer())
    flavor = objects.Flavor(flavorid='1', name='tiny', memory_mb=1, vcpus=1)
    primitive = serializer.serialize_entity(ctxt, flavor)
    back = serializer.deserialize_entity(
        serializer.deserialize_context(serializer.serialize_context(ctxt)),
        primitive)
    assert back.name == 'tiny' and back._context.project_id == 'p'
