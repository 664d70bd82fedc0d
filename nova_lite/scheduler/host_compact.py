"""Compact storage for what every HostState keeps, so that a million
hosts fit in a couple of gigabytes.

Most of what a host state holds repeats across hosts: the same traits,
aggregates, inventories, flavors, projects and image properties. Those
values are *shared*: ``shared(value)`` returns the one stored copy equal
to an immutable value, so a million hosts with a few hundred distinct
trait sets hold a few hundred sets. What is unique per host is packed:
the instances on a node are kept as one bytes object of their uuids and
a tuple of shared *profiles* (everything of a HostInstance but its uuid)
and turned back into HostInstance records only when read.

    traits = shared(frozenset(summary.traits))
    packed = pack_instances(instances)
    {inst.uuid: inst for inst in unpack_instances(packed, HostInstance)}

Sharing is only an optimisation: each table keeps at most about
``_MAX_SHARED`` entries in its newer half and as many in its older one;
when the newer fills up it becomes the older and the older is dropped,
and an entry found in the older moves to the newer, so a value in use
stays shared and a fleet with more distinct values than that loses only
the ones not seen lately (never the whole table at once). An unhashable
value is stored as it is. Numbers are kept apart by type: 1, 1.0 and
True are equal keys of a dict, but a host state must keep the type it
was given.
"""

# Entries kept in each half of a table (see _Table).
_MAX_SHARED = 200000

# Types whose equal values of another type (1, 1.0, True) must not be
# handed back for each other.
_NUMBERS = frozenset((bool, int, float, complex))


class _Table:
    """A dict in two generations: ``get`` looks in the newer, then in
    the older (and moves what it finds there to the newer); ``put``
    starts a new generation when the newer is full."""

    __slots__ = ('new', 'old', 'limit')

    def __init__(self, limit=None):
        self.new, self.old, self.limit = {}, {}, limit

    def get(self, key):
        """The value under ``key`` or None (TypeError: unhashable)."""
        found = self.new.get(key)
        if found is None:
            found = self.old.get(key)
            if found is not None:
                self.put(key, found)
        return found

    def put(self, key, value):
        if len(self.new) >= (self.limit or _MAX_SHARED):
            self.old, self.new = self.new, {}
        self.new[key] = value
        return value

    def __len__(self):
        return len(self.new) + len(self.old)


_values = _Table()
_profiles = _Table()
_derived = _Table()

# Read-only stand-ins for the empty containers most hosts hold.
EMPTY_MAP = {}


def _store(key, value):
    """Keep ``value`` under ``key``."""
    return _values.put(key, value)


def _lookup(key, make):
    """The value kept under ``key``, else ``make()`` kept there; an
    unhashable key gets ``make()``, not kept."""
    try:
        found = _values.new.get(key)
        if found is None:
            found = _values.get(key)
    except TypeError:
        return make()
    return found if found is not None else _store(key, make())


def shared(value):
    """The stored value equal to ``value`` (hashable and immutable), of
    its type when it is a number."""
    key = ('number', type(value), value) if type(value) in _NUMBERS \
        else value
    try:
        found = _values.new.get(key)
        if found is None:
            found = _values.get(key)
    except TypeError:
        return value
    return found if found is not None else _store(key, value)


def shared_mapping(mapping):
    """A dict equal to ``mapping``, shared with every equal one whose
    values are hashable; callers must not mutate it."""
    if not mapping:
        return EMPTY_MAP
    try:
        key = ('map', frozenset(mapping.items()))
    except TypeError:
        return dict(mapping)
    return _lookup(key, lambda: dict(mapping))


def shared_list(items):
    """A list of ``items`` (hashable), shared with every equal one;
    callers must not mutate it."""
    items = tuple(items)
    return _lookup(('list', items), lambda: list(items))


def shared_usage(classes, amounts):
    """The stored pair equal to (``classes``, ``amounts``) (tuples) with
    amounts of the same types (a usage of 1.0 stays a float)."""
    return _lookup(('usage', classes, amounts, tuple(map(type, amounts))),
                   lambda: (classes, amounts))


def shared_number(value):
    """The stored number equal to ``value`` and of its type (an int past
    256 is an object of 28 bytes or more per host otherwise)."""
    return _lookup((type(value), value), lambda: value)


def derived(kind, sources, make):
    """``make()``, remembered by ``kind`` and the identity of the
    ``sources`` (shared values, which nobody mutates): what a host state
    works out from its shared values is worked out once per distinct
    combination of them. The sources are held, so their ids stay
    theirs while remembered (so an id found is of the same object)."""
    key = (kind, *map(id, sources))
    found = _derived.new.get(key)
    if found is None:
        found = _derived.get(key)
    if found is not None:
        return found[1]
    value = make()
    _derived.put(key, (tuple(sources), value))
    return value


def shared_row(values):
    """The stored tuple equal to ``values`` (hashable) with values of
    the same types (so 1 and 1.0 stay apart)."""
    return _lookup(('row', values, tuple(map(type, values))),
                   lambda: values)


def shared_json(value):
    """A value equal to ``value`` (lists and dicts of strings, numbers,
    booleans and None, as a compute reports NUMA cells and PCI pools),
    shared with every equal one; callers must not mutate it. Equal
    values of different types (1 and 1.0) are not merged."""
    if not value:
        return value
    return _lookup(('json', repr(value)), lambda: value)


def _props_key(props):
    if not props:
        return ()
    try:
        key = frozenset(props.items())
        hash(key)
        return key
    except TypeError:
        # Unhashable values (lists): a key of this dict alone.
        return ('id', id(props))


def _profile(instance):
    """(project_id, vm_state, task_state, flavor, image_properties,
    group_uuids) of ``instance``, shared with every instance alike."""
    props = instance.image_properties
    groups = instance.group_uuids
    if type(groups) is not frozenset:
        groups = frozenset(groups or ())
    key = (instance.project_id, instance.vm_state, instance.task_state,
           id(instance.flavor), _props_key(props) if props else (), groups)
    found = _profiles.new.get(key)
    if found is None:
        found = _profiles.get(key)
    if found is None:
        found = _profiles.put(key, (
            shared(instance.project_id), instance.vm_state,
            instance.task_state, instance.flavor,
            props if props else EMPTY_MAP,
            shared(groups),
            # Holding the flavor keeps its id from being reused by
            # another flavor while the key is in the table.
        ))
    return found


def _canonical_bytes(text, count):
    """The 16 bytes of each uuid of ``text``, ``count`` canonical uuids
    (lowercase, dashed) joined by single spaces; None when it is not
    that. The separators are checked in place, then every other
    character must be a hex digit (fromhex skips whitespace, so one in
    a digit's place leaves fewer bytes)."""
    if (len(text) != 37 * count - 1
            or text[36::37] != ' ' * (count - 1)):
        return None
    dashes = '-' * count
    if (text[8::37] != dashes or text[13::37] != dashes
            or text[18::37] != dashes or text[23::37] != dashes
            or text.lower() != text):
        return None
    try:
        raw = bytes.fromhex(text.replace('-', ''))
    except ValueError:
        return None
    return raw if len(raw) == 16 * count else None


def _uuid_str(raw):
    text = raw.hex()
    return '%s-%s-%s-%s-%s' % (text[:8], text[8:12], text[12:16],
                               text[16:20], text[20:])


def pack_instances(instances):
    """The compact form of ``instances`` (HostInstance records, in their
    order; later duplicates of a uuid replace earlier ones): ``(uuids,
    profiles)`` with ``uuids`` one bytes object of 16 bytes per
    instance, or a tuple of strings when one uuid is not canonical.
    ``()`` when there are none."""
    by_uuid = {instance.uuid: instance for instance in instances}
    if not by_uuid:
        return ()
    profiles = tuple(map(_profile, by_uuid.values()))
    try:
        text = ' '.join(by_uuid)
    except TypeError:
        return (tuple(by_uuid), profiles)
    # Every uuid at once (one check and one hex reading per node, not
    # per instance).
    raw = _canonical_bytes(text, len(by_uuid))
    if raw is None:
        return (tuple(by_uuid), profiles)
    return (raw, profiles)


def instance_uuids(packed):
    """The uuids of a packed instance list, in order."""
    if not packed:
        return ()
    uuids = packed[0]
    if isinstance(uuids, tuple):
        return uuids
    return [_uuid_str(uuids[i:i + 16]) for i in range(0, len(uuids), 16)]


def unpack_instances(packed, record):
    """The instances of a packed list, as ``record(uuid, *profile)``."""
    if not packed:
        return []
    return [record(uuid, *profile)
            for uuid, profile in zip(instance_uuids(packed), packed[1],
                                     strict=True)]


def profiles(packed):
    """The shared profiles of a packed list (see ``_profile``)."""
    return packed[1] if packed else ()
