"""NovaLiteObject's own obj_to_primitive and _obj_from_primitive (the bus
carries several objects per boot each way) give what oslo.versionedobjects'
do, for every registered object, fully populated and at every version of
its history."""

import datetime
import types

from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import exception as ovo_exception
from oslo_versionedobjects import fields as ovo_fields
import pytest

from nova_lite import context as nl_context
from nova_lite import objects
from nova_lite.objects import base
from nova_lite.objects import fields
from tests.unit.objects import test_compat

UUID = '3b0e8f0a-1d5e-4a4c-9d53-0c9f1a2b3c4d'

WHEN = datetime.datetime(2026, 1, 2, 3, 4, 5, 678000,
                         tzinfo=datetime.timezone.utc)


def _oslo_to_primitive(obj, *args, **kwargs):
    return ovo_base.VersionedObject.obj_to_primitive(obj, *args, **kwargs)


def _oslo_from_primitive(cls, context, version, primitive):
    method = ovo_base.VersionedObject.__dict__['_obj_from_primitive']
    return method.__func__(cls, context, version, primitive)


def _normalised(primitive):
    """The primitive with its changes as a set, at every level: both
    list the changed fields in the order of a set's iteration."""
    if isinstance(primitive, dict):
        return {key: (frozenset(value)
                      if key == 'nova_lite_object.changes'
                      else _normalised(value))
                for key, value in primitive.items()}
    if isinstance(primitive, list):
        return [_normalised(item) for item in primitive]
    return primitive


def _sample(cls):
    obj = test_compat._populated(cls)
    for name in obj.fields:
        if name.endswith('_at'):
            setattr(obj, name, WHEN)
    # Some fields changed, some not, some left unset.
    names = sorted(name for name in obj.fields if obj.obj_attr_is_set(name))
    obj.obj_reset_changes(names[::2])
    return obj


def _state(obj):
    """Everything an object holds: its class, version, changed fields
    and each set field's value with the value's type."""
    values = {}
    for name in obj.fields:
        if not obj.obj_attr_is_set(name):
            continue
        value = getattr(obj, name)
        if isinstance(value, ovo_base.VersionedObject):
            values[name] = _state(value)
        elif isinstance(value, list) and value and isinstance(
                value[0], ovo_base.VersionedObject):
            values[name] = [_state(item) for item in value]
        else:
            values[name] = (type(value), value)
    return (type(obj), obj.VERSION, frozenset(obj._changed_fields), values)


@pytest.mark.parametrize('name', test_compat.OBJECTS)
def test_to_primitive_is_oslos_at_every_version(name):
    cls = test_compat._current()[name]
    obj = _sample(cls)
    assert (_normalised(obj.obj_to_primitive()) ==
            _normalised(_oslo_to_primitive(obj)))
    for version in test_compat._history(cls):
        assert (_normalised(obj.obj_to_primitive(target_version=version)) ==
                _normalised(_oslo_to_primitive(obj,
                                               target_version=version)))
    manifest = {other: test_compat._history(klass)[0]
                for other, klass in test_compat._current().items()}
    assert (_normalised(obj.obj_to_primitive(version_manifest=manifest)) ==
            _normalised(_oslo_to_primitive(obj, version_manifest=manifest)))


@pytest.mark.parametrize('name', test_compat.OBJECTS)
def test_from_primitive_is_oslos(name):
    cls = test_compat._current()[name]
    context = nl_context.get_admin_context()
    primitive = _sample(cls).obj_to_primitive()
    data = primitive['nova_lite_object.data']
    ours = cls._obj_from_primitive(context, cls.VERSION, primitive)
    theirs = _oslo_from_primitive(cls, context, cls.VERSION, primitive)
    assert _state(ours) == _state(theirs)
    assert ours._context is context
    assert {n for n in ours.fields if ours.obj_attr_is_set(n)} == set(data)


def test_a_received_value_is_coerced_as_its_setter_would():
    primitive = objects.Flavor(flavorid='1', memory_mb=64,
                               extra_specs={'k': 'v'}).obj_to_primitive()
    primitive['nova_lite_object.data']['memory_mb'] = '128'
    flavor = objects.Flavor.obj_from_primitive(primitive)
    assert flavor.memory_mb == 128
    # Still a coercing dict: what is put in it later is coerced too.
    assert isinstance(flavor.extra_specs, ovo_fields.CoercedDict)
    primitive['nova_lite_object.data']['memory_mb'] = 'lots'
    with pytest.raises(ValueError):
        objects.Flavor.obj_from_primitive(primitive)


def test_a_newer_target_version_is_refused():
    flavor = objects.Flavor(flavorid='1')
    with pytest.raises(ovo_exception.InvalidTargetVersion):
        flavor.obj_to_primitive(target_version='99.0')


def test_attr_is_set_knows_fields_and_extra_fields_only():
    flavor = objects.Flavor(flavorid='1')
    assert flavor.obj_attr_is_set('flavorid')
    assert not flavor.obj_attr_is_set('name')
    with pytest.raises(AttributeError, match="Flavor object has no "
                                             "attribute 'nonsense'"):
        flavor.obj_attr_is_set('nonsense')


@pytest.mark.parametrize('field, plain', [
    (ovo_fields.IntegerField(), True),
    (ovo_fields.StringField(nullable=True), True),
    (ovo_fields.UUIDField(), True),
    (ovo_fields.DateTimeField(), False),
    (ovo_fields.DictOfStringsField(), False),
    (ovo_fields.ObjectField('Flavor'), False),
])
def test_only_identity_fields_are_plain(field, plain):
    assert base._plain(field, 'to_primitive') is plain


@pytest.mark.parametrize('field, exact', [
    (ovo_fields.IntegerField(), int),
    (ovo_fields.StringField(nullable=True), str),
    (ovo_fields.UUIDField(), str),
    (ovo_fields.BooleanField(), bool),
    (ovo_fields.FloatField(), float),
    # Their coercion checks or converts what it is given.
    (fields.VMStateField(), None),
    (ovo_fields.NonNegativeIntegerField(), None),
    (ovo_fields.FlexibleBooleanField(), None),
    (ovo_fields.DateTimeField(), None),
    (ovo_fields.ObjectField('Flavor'), None),
])
def test_only_coercions_that_keep_a_value_of_the_type_are_skipped(
        field, exact):
    assert base._exact(field) is exact


def test_a_received_enum_is_still_checked():
    primitive = objects.Instance(uuid=UUID, vm_state='active',
                                 memory_mb=64).obj_to_primitive()
    primitive['nova_lite_object.data']['vm_state'] = 'sideways'
    with pytest.raises(ValueError):
        objects.Instance.obj_from_primitive(primitive)
    # A bool received for an integer field is converted, as before.
    primitive['nova_lite_object.data']['vm_state'] = 'active'
    primitive['nova_lite_object.data']['memory_mb'] = True
    assert type(objects.Instance.obj_from_primitive(
        primitive).memory_mb) is int


def _row_of(cls):
    """A row-like object holding raw values for ``cls``'s fields: what
    the sample holds, with integers as strings where the field takes
    them (a row's values are not always of the field's type)."""
    sample = _sample(cls)
    row = {}
    for name in sample.fields:
        if sample.obj_attr_is_set(name):
            value = getattr(sample, name)
            row[name] = str(value) if type(value) is int else value
    return types.SimpleNamespace(**row)


def _by_setters(obj, row, skip=()):
    for name in obj.fields:
        if name not in skip and hasattr(row, name):
            setattr(obj, name, getattr(row, name))


@pytest.mark.parametrize('name', test_compat.OBJECTS)
def test_set_all_from_db_is_the_setters(name):
    cls = test_compat._current()[name]
    row = _row_of(cls)
    skip = tuple(sorted(vars(row))[:1])
    ours, theirs = cls(), cls()
    base.set_all_from_db(ours, row, skip=skip)
    _by_setters(theirs, row, skip=skip)
    assert _state(ours) == _state(theirs)


def test_set_all_from_db_keeps_a_read_only_field():
    service = objects.Service(id=1)
    with pytest.raises(ovo_exception.ReadOnlyFieldError):
        base.set_all_from_db(service, types.SimpleNamespace(id=2))
    base.set_all_from_db(service, types.SimpleNamespace(id=1, host='h'))
    assert (service.id, service.host) == (1, 'h')


def test_set_all_from_db_refuses_what_the_field_refuses():
    with pytest.raises(ValueError):
        base.set_all_from_db(objects.Instance(),
                             types.SimpleNamespace(vm_state='sideways'))
