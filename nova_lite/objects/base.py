"""The versioned object base, registry and serializer.

Every object that crosses RPC derives from ``NovaLiteObject``. Writing a new
one (see oslo.versionedobjects' usage guide):

* register it with ``@base.NovaLiteObjectRegistry.register``;
* keep a ``# Version x.y: what changed`` line per version above ``VERSION``;
* put ``obj_make_compatible`` right after ``fields``, one clause per line of
  the history, newest first;
* add its fingerprint to ``tests/unit/objects/test_objects.py``.

Remotable methods (``@base.remotable``, and ``@classmethod`` over
``@base.remotable``) run locally when the process has database access and
through the conductor when it does not (``indirection_api``).
"""

import copy
import datetime
import uuid

from oslo_utils import versionutils
from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import exception as ovo_exception
from oslo_versionedobjects import fields as ovo_fields

from nova_lite import objects

remotable = ovo_base.remotable


class NovaLiteObjectRegistry(ovo_base.VersionedObjectRegistry):
    def registration_hook(self, cls, index):
        # Expose the newest version of each class as nova_lite.objects.<Name>
        # so callers never import the object modules themselves.
        version = versionutils.convert_version_to_tuple(cls.VERSION)
        current = getattr(objects, cls.obj_name(), None)
        if current is None or version >= versionutils.convert_version_to_tuple(
                current.VERSION):
            setattr(objects, cls.obj_name(), cls)


class NovaLiteObject(ovo_base.VersionedObject):
    """Base of every nova_lite versioned object."""

    OBJ_SERIAL_NAMESPACE = 'nova_lite_object'
    OBJ_PROJECT_NAMESPACE = 'nova_lite'

    def obj_reset_changes(self, fields=None, recursive=False):
        """As oslo.versionedobjects' reset, looking for sub-objects to
        reset only in the object and list-of-objects fields: it reads
        every changed field for that, and an object just read from the
        database has every field changed."""
        if recursive:
            changed = self.obj_what_changed()
            for name, is_list in _fields_of_objects(type(self)):
                if name not in changed or (fields and name not in fields):
                    continue
                value = getattr(self, '_obj_' + name, None)
                for sub in (value or () if is_list else (value,)):
                    if sub is not None:
                        sub.obj_reset_changes(recursive=True)
        if fields:
            self._changed_fields -= set(fields)
        else:
            self._changed_fields.clear()

    def obj_set_values(self):
        """{name: value} of the fields set (none lazy-loaded)."""
        values = {}
        for name, attr, *_unused in _plan(type(self)).fields:
            value = getattr(self, attr, _UNSET)
            if value is not _UNSET:
                values[name] = value
        return values

    def obj_attr_is_set(self, attrname):
        """As oslo.versionedobjects' check, without building the list of
        field names at every call (a fifth of an object's serialisation,
        which asks once per field)."""
        if attrname not in _plan(type(self)).names:
            raise AttributeError("%s object has no attribute '%s'"
                                 % (self.obj_name(), attrname))
        return hasattr(self, '_obj_' + attrname)

    def obj_to_primitive(self, target_version=None, version_manifest=None):
        """oslo.versionedobjects' ``obj_to_primitive``, the same output,
        reading each set field once, directly, and calling its field's
        ``to_primitive`` only where that is not the identity (see
        ``_Plan``): objects are (de)serialised several times per boot in
        every daemon."""
        if target_version is None:
            target_version = self.VERSION
        elif target_version != self.VERSION and (
                versionutils.convert_version_to_tuple(target_version) >
                versionutils.convert_version_to_tuple(self.VERSION)):
            raise ovo_exception.InvalidTargetVersion(version=target_version)
        primitive = {}
        for name, attr, field, plain, *_unused in _plan(type(self)).fields:
            value = getattr(self, attr, _UNSET)
            if value is _UNSET:
                continue
            primitive[name] = (value if plain or value is None
                               else field.to_primitive(self, name, value))
        if target_version != self.VERSION or version_manifest:
            self.obj_make_compatible_from_manifest(
                primitive, target_version, version_manifest)
        key = self._obj_primitive_key
        obj = {key('name'): self.obj_name(),
               key('namespace'): self.OBJ_PROJECT_NAMESPACE,
               key('version'): target_version,
               key('data'): primitive}
        changes = [name for name in self.obj_what_changed()
                   if name in primitive]
        if changes:
            obj[key('changes')] = changes
        return obj

    @classmethod
    def _obj_from_primitive(cls, context, objver, primitive):
        """oslo.versionedobjects' ``_obj_from_primitive``, the same object:
        each value deserialised by its field and coerced, as its setter
        would, but set without the setter's bookkeeping, which the
        changed fields read from the primitive replace anyway. A value
        its field's coercion would return unchanged (see ``_Plan``) is
        set as it is."""
        self = cls()
        self._context = context
        self.VERSION = objver
        objdata = primitive[cls._obj_primitive_key('data')]
        for name, attr, field, _unused, plain, exact in _plan(cls).fields:
            if name not in objdata:
                continue
            value = objdata[name]
            if type(value) is not exact:
                if not plain and value is not None:
                    value = field.from_primitive(self, name, value)
                value = field.coerce(self, name, value)
            setattr(self, attr, value)
        changes = primitive.get(cls._obj_primitive_key('changes'), ())
        self._changed_fields = {name for name in changes
                                if name in self.fields}
        return self

    def obj_load_attr(self, attrname):
        raise NotImplementedError('%s has no lazy-loadable attribute %s'
                                  % (self.obj_name(), attrname))

    def obj_clone(self):
        """A deep copy, as oslo.versionedobjects' ``obj_clone``: the same
        field values (sub-objects, lists and dicts copied, never shared),
        context and changed fields. Faster than its ``copy.deepcopy``
        walk, which coerces every value again through its field: a
        value read from a field already has the field's type."""
        return _clone(self, {})

    def obj_what_changed(self):
        """The changed fields, as oslo.versionedobjects finds them, but
        looking for changed sub-objects only in the fields that can hold
        one: it looks in every field set, through its property, and
        ``obj_to_primitive`` asks twice at every level of a nested
        object (a tenth of the API's profile of a boot)."""
        changes = {name for name in self._changed_fields
                   if name in self.fields}
        for name in _fields_holding_objects(type(self)):
            value = getattr(self, '_obj_' + name, None)
            if (isinstance(value, ovo_base.VersionedObject) and
                    value.obj_what_changed()):
                changes.add(name)
        return changes

    # Remotable methods that read nothing of the object but the fields
    # named here and its changed fields: {method: identity fields}. Sent
    # through the conductor, such a call carries only those (see
    # ``obj_sparse_for``) instead of the whole object.
    obj_sparse_methods = {}

    def obj_sparse_for(self, method):
        """A copy of this object holding only what ``method`` reads (its
        identity fields and the changed fields, still marked changed), or
        None when ``method`` needs the whole object. Sub-objects are
        shared, not copied: the copy is only serialized."""
        identity = self.obj_sparse_methods.get(method)
        if identity is None:
            return None
        changed = self.obj_what_changed()
        sparse = self.__class__()
        sparse.VERSION = self.VERSION
        for name in set(identity) | changed:
            if self.obj_attr_is_set(name):
                setattr(sparse, name, getattr(self, name))
        sparse.obj_reset_changes()
        sparse._changed_fields = set(changed)
        return sparse


_UNSET = object()


class _Plan:
    """What (de)serialising a class of object needs, worked out once:
    ``names``, its field and extra field names, and ``fields``, per
    field (name, attribute, field, to_primitive is the identity,
    from_primitive is the identity, the type of value its coercion
    returns unchanged or None). A field is plain when neither it nor its
    type overrides the method (integers, strings, booleans, uuids,
    enums): its value is its primitive."""

    def __init__(self, cls):
        self.names = frozenset(cls.fields) | frozenset(cls.obj_extra_fields)
        self.fields = tuple(
            (name, '_obj_' + name, field,
             _plain(field, 'to_primitive'), _plain(field, 'from_primitive'),
             _exact(field))
            for name, field in cls.fields.items())


# Field types whose coercion returns a value of exactly this type as it
# is (``int(value)``, ``str(value)``, ...): an integer received for an
# IntegerField needs no coercion. Not their subclasses (an Enum checks
# its value), and UUID's coercion only warns of a malformed value, which
# the sender's field warned of already.
_EXACT = {ovo_fields.Integer: int, ovo_fields.String: str,
          ovo_fields.UUID: str, ovo_fields.Boolean: bool,
          ovo_fields.Float: float}


def _exact(field):
    if (type(field).coerce is not ovo_fields.Field.coerce or
            not _plain(field, 'from_primitive')):
        return None
    return _EXACT.get(type(getattr(field, '_type', None)))


def _plain(field, method):
    kind = getattr(field, '_type', None)
    return (kind is not None and
            getattr(type(field), method) is getattr(ovo_fields.Field,
                                                    method) and
            getattr(type(kind), method) is getattr(ovo_fields.FieldType,
                                                   method))


_PLANS = {}


def _plan(cls):
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = _Plan(cls)
    return plan


_HOLDING_OBJECTS = {}
_OF_OBJECTS = {}


def _fields_of_objects(cls):
    """((name, is a list), ...) of ``cls``'s ObjectFields and
    ListOfObjectsFields: the ones oslo.versionedobjects resets
    recursively."""
    found = _OF_OBJECTS.get(cls)
    if found is None:
        found = _OF_OBJECTS[cls] = tuple(
            (name, isinstance(field, ovo_fields.ListOfObjectsField))
            for name, field in cls.fields.items()
            if isinstance(field, (ovo_fields.ObjectField,
                                  ovo_fields.ListOfObjectsField)))
    return found


def _fields_holding_objects(cls):
    """The names of ``cls``'s fields whose value can be an object: an
    ObjectField, or a field of no fixed type (JSONField); every other
    field coerces its value to a primitive or a collection."""
    names = _HOLDING_OBJECTS.get(cls)
    if names is None:
        names = tuple(
            name for name, field in cls.fields.items()
            if isinstance(getattr(field, '_type', None), ovo_fields.Object)
            or type(getattr(field, '_type', None)) in (
                ovo_fields.FieldType, type(None)))
        _HOLDING_OBJECTS[cls] = names
    return names


# Types whose values a copy can share: nothing changes them in place
# (exact types: a subclass may add mutable state, and is deep-copied).
_IMMUTABLE = (str, int, float, bool, type(None), bytes, datetime.datetime,
              datetime.date, datetime.timedelta, uuid.UUID)
_COERCED = (ovo_fields.CoercedDict, ovo_fields.CoercedList,
            ovo_fields.CoercedSet)


def _clone(value, memo):
    """A deep copy of a field's value; ``memo`` maps the id of each object
    copied to its copy, so that shared sub-objects stay shared."""
    kind = type(value)
    if kind in _IMMUTABLE:
        return value
    if kind is dict:
        return {key: _clone(item, memo) for key, item in value.items()}
    if kind is list:
        return [_clone(item, memo) for item in value]
    if kind is tuple:
        return tuple(_clone(item, memo) for item in value)
    if kind in _COERCED:
        return _clone_coerced(value, memo)
    if (isinstance(value, ovo_base.VersionedObject) and
            type(value).__deepcopy__ is ovo_base.VersionedObject.__deepcopy__):
        return _clone_object(value, memo)
    return copy.deepcopy(value, memo)


def _clone_coerced(value, memo):
    """A copy of a collection that coerces what is put in it (a field's
    dict, list or set), coercing for the copy of its object, filled
    without coercing again."""
    kind = type(value)
    clone = kind()
    owner = getattr(value, '_obj', None)
    clone.enable_coercing(getattr(value, '_element_type', None),
                          memo.get(id(owner), owner),
                          getattr(value, '_field', None))
    if kind is ovo_fields.CoercedDict:
        dict.update(clone, ((key, _clone(item, memo))
                            for key, item in value.items()))
    elif kind is ovo_fields.CoercedList:
        list.extend(clone, (_clone(item, memo) for item in value))
    else:
        set.update(clone, (_clone(item, memo) for item in value))
    return clone


def _clone_object(obj, memo):
    copied = memo.get(id(obj))
    if copied is not None:
        return copied
    clone = obj.__class__()
    memo[id(obj)] = clone
    clone._context = obj._context
    for name in obj.fields:
        attr = '_obj_' + name
        try:
            value = getattr(obj, attr)
        except AttributeError:
            continue   # not set: not copied, nor lazy-loaded
        setattr(clone, attr, _clone(value, memo))
    clone._changed_fields = set(obj._changed_fields)
    return clone


class NovaLiteTimestampObject:
    """Mixin for objects backed by a row with created_at/updated_at."""
    fields = {
        'created_at': ovo_fields.DateTimeField(nullable=True),
        'updated_at': ovo_fields.DateTimeField(nullable=True),
    }


class NovaLitePersistentObject:
    """Mixin for soft-deleted rows."""
    fields = {
        'created_at': ovo_fields.DateTimeField(nullable=True),
        'updated_at': ovo_fields.DateTimeField(nullable=True),
        'deleted_at': ovo_fields.DateTimeField(nullable=True),
        'deleted': ovo_fields.BooleanField(default=False),
    }


class ObjectListBase(ovo_base.ObjectListBase):
    # A list's version moves with its child's: bump both together and say
    # so in both histories.
    pass


class NovaLiteObjectSerializer(ovo_base.VersionedObjectSerializer):
    """Turns objects into primitives for the bus and back.

    A received object newer than this process knows is backported by the
    conductor (``object_backport_versions``) when ``indirection_api`` is
    set; the conductor itself is upgraded first and never needs to.
    """
    OBJ_BASE_CLASS = NovaLiteObject


def obj_to_primitive(obj):
    """Recursively turn an object (or list/dict of them) into primitives."""
    if isinstance(obj, ObjectListBase):
        return [obj_to_primitive(x) for x in obj]
    if isinstance(obj, NovaLiteObject):
        return {key: obj_to_primitive(getattr(obj, key))
                for key in obj.obj_fields if obj.obj_attr_is_set(key)}
    return obj


def set_all_from_db(obj, db_obj, skip=()):
    """Copy every field of ``obj`` present on the row ``db_obj``, each
    coerced and marked changed as its setter would (called on every row
    read: the setters' property machinery cost more than the copy)."""
    changed = obj._changed_fields
    for name, attr, field, _to, _from, exact in _plan(type(obj)).fields:
        if name in skip:
            continue
        value = getattr(db_obj, name, _UNSET)
        if value is _UNSET:
            continue
        if field.read_only:
            setattr(obj, name, value)   # the setter refuses a change
            continue
        if type(value) is not exact:
            value = field.coerce(obj, name, value)
        setattr(obj, attr, value)
        changed.add(name)
