"""Every object, backported to every older version, read by the old code.

Generated from the objects themselves: for each object and each version in
its ``# Version x.y:`` history, a fully populated instance is backported
and must come out at that version with no field the older version did not
have. For the previous release (releases.json), the test goes further: it
loads that release's own object classes from git into a second registry,
and checks that the old classes read what the current code sends them,
with the same values, and that an old process receiving a current object
gets it backported through the conductor.
"""

import collections
import datetime
import inspect
import re
import subprocess
import types

from oslo_utils import versionutils
from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fields as ovo_fields
import pytest

from nova_lite.conductor import manager as conductor_manager
from nova_lite import context as nl_context
from nova_lite import objects
from nova_lite.objects import base
from nova_lite.objects import fields as nl_fields
from nova_lite import releases

ROOT = __file__.rsplit('/tests/', 1)[0]
HISTORY = re.compile(r'^\s*# Version (\d+\.\d+):', re.M)
WHEN = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
UUID = '0cdb5e2c-52d8-4c25-8a3f-6c4a3e6f1a6b'


def _current():
    return {name: classes[0] for name, classes in
            base.NovaLiteObjectRegistry.obj_classes().items()}


def _sample(field, depth=0):
    """A value for ``field`` (an oslo.versionedobjects Field)."""
    kind = field._type
    if isinstance(kind, ovo_fields.Object):
        return _populated(_current()[kind._obj_name], depth + 1)
    if isinstance(kind, ovo_fields.List):
        element = kind._element_type
        if isinstance(element, ovo_fields.Object):
            return [_populated(_current()[element._type._obj_name],
                               depth + 1)]
        return ['a']
    samples = [
        (nl_fields.VMStateField, 'active'),
        (nl_fields.TaskStateField, 'spawning'),
        (ovo_fields.UUIDField, UUID),
        (ovo_fields.BooleanField, True),
        (ovo_fields.FlexibleBooleanField, True),
        (ovo_fields.IntegerField, 3),
        (ovo_fields.FloatField, 1.5),
        (ovo_fields.DateTimeField, WHEN),
        (ovo_fields.DictOfListOfStringsField, {'k': ['v']}),
        (ovo_fields.DictOfNullableStringsField, {'k': 'v'}),
        (ovo_fields.DictOfStringsField, {'k': 'v'}),
        (ovo_fields.DictOfIntegersField, {'k': 1}),
        (ovo_fields.StringField, 'text'),
    ]
    for field_class, value in samples:
        if isinstance(field, field_class):
            return value
    return {'k': 1}          # JSON-ish and other dict fields


def _populated(cls, depth=0):
    obj = cls()
    if depth > 3:
        return obj
    for name, field in cls.fields.items():
        if name == 'objects' or name.endswith('_at'):
            continue
        try:
            setattr(obj, name, _sample(field, depth))
        except (ValueError, TypeError):
            pass             # a field the sampler cannot fill stays unset
    return obj


def _history(cls):
    return HISTORY.findall(inspect.getsource(cls))


OBJECTS = sorted(_current())


@pytest.mark.parametrize('name', OBJECTS)
def test_backports_to_every_version_in_the_history(name):
    cls = _current()[name]
    versions = _history(cls)
    assert versions and versions[-1] == cls.VERSION
    obj = _populated(cls)
    previous_keys = None
    for version in reversed(versions):
        primitive = obj.obj_to_primitive(target_version=version)
        assert primitive['nova_lite_object.version'] == version
        keys = set(primitive['nova_lite_object.data'])
        if previous_keys is not None:
            # Going back in time only ever drops fields.
            assert keys <= previous_keys, (name, version)
        previous_keys = keys


# The previous release's own object classes, from git.

def _previous_release():
    named = [r for r in releases.all_releases() if r['commit']]
    return named[-1] if named else None


def _git_show(commit, path):
    return subprocess.run(['git', '-C', ROOT, 'show', '%s:%s' % (commit,
                                                                  path)],
                          check=True, capture_output=True, text=True).stdout


def _old_modules(commit):
    listing = subprocess.run(
        ['git', '-C', ROOT, 'ls-tree', '--name-only', commit,
         'nova_lite/objects/'], check=True, capture_output=True,
        text=True).stdout.split()
    return [path for path in listing if path.endswith('.py')
            and not path.endswith(('__init__.py', 'base.py', 'fields.py'))]


class _Registries:
    """Swap oslo.versionedobjects' registry between the current classes
    and an old release's (and restore nova_lite.objects' attributes,
    which registration rebinds)."""

    def __init__(self):
        self._registry = ovo_base.VersionedObjectRegistry._registry
        self.current = self._registry._obj_classes
        self.old = None

    def load_old(self, release):
        saved = dict(vars(objects))
        self._registry._obj_classes = collections.defaultdict(list)
        try:
            for path in _old_modules(release['commit']):
                module = types.ModuleType('old_' + path.replace('/', '_'))
                exec(compile(_git_show(release['commit'], path), path,
                             'exec'), module.__dict__)
        finally:
            self.old = self._registry._obj_classes
            self._registry._obj_classes = self.current
            for key in list(vars(objects)):
                if key not in saved:
                    delattr(objects, key)
            vars(objects).update(saved)

    def use(self, which):
        self._registry._obj_classes = which


@pytest.fixture(scope='module')
def registries():
    release = _previous_release()
    if release is None or release['name'] == releases.names()[-1] and \
            len(releases.all_releases()) == 1:
        pytest.skip('no previous release to be compatible with')
    try:
        subprocess.run(['git', '-C', ROOT, 'cat-file', '-e',
                        release['commit']], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip('the git history of %s is not here' % release['name'])
    regs = _Registries()
    regs.load_old(release)
    yield release, regs
    regs.use(regs.current)


def _same(old, new):
    """What the old side sees equals what was sent, for every field the
    old side knows (recursively)."""
    if isinstance(old, base.NovaLiteObject):
        return all(_same(getattr(old, k), getattr(new, k))
                   for k in old.fields if old.obj_attr_is_set(k))
    if isinstance(old, list):
        return len(old) == len(new) and all(map(_same, old, new))
    return old == new


def _only_known_fields(primitive, registry):
    """No field the old classes lack is sent (old code would ignore it
    silently, so a missing backport clause would otherwise go unseen)."""
    name = primitive['nova_lite_object.name']
    old = [c for c in registry[name]
           if c.VERSION == primitive['nova_lite_object.version']]
    assert old, '%s %s unknown to the old release' % (
        name, primitive['nova_lite_object.version'])
    data = primitive['nova_lite_object.data']
    extra = set(data) - set(old[0].fields)
    assert not extra, '%s sends %s to the old release' % (name, extra)
    for value in data.values():
        children = value if isinstance(value, list) else [value]
        for child in children:
            if isinstance(child, dict) and 'nova_lite_object.name' in child:
                _only_known_fields(child, registry)


@pytest.mark.parametrize('name', OBJECTS)
def test_the_previous_release_reads_what_we_send(registries, name):
    release, regs = registries
    if name not in release['objects']:
        pytest.skip('%s is new in this release' % name)
    manifest = release['objects']
    obj = _populated(_current()[name])
    primitive = obj.obj_to_primitive(target_version=manifest[name],
                                     version_manifest=manifest)
    regs.use(regs.old)
    try:
        old_cls = regs.old[name][0]
        assert old_cls.VERSION == manifest[name]
        _only_known_fields(primitive, regs.old)
        seen = old_cls.obj_from_primitive(primitive)
        for field in old_cls.fields:
            if obj.obj_attr_is_set(field):
                assert seen.obj_attr_is_set(field), (name, field)
                assert _same(getattr(seen, field), getattr(obj, field)), (
                    name, field)
    finally:
        regs.use(regs.current)


class _ConductorBackports:
    """The indirection API of an old process: backports go to a current
    conductor (here in the same process, under the current registry)."""

    def __init__(self, regs):
        self.regs = regs
        self.calls = 0

    def object_backport_versions(self, context, objprim, object_versions):
        self.calls += 1
        self.regs.use(self.regs.current)
        try:
            objinst = base.NovaLiteObject.obj_from_primitive(objprim)
            manager = conductor_manager.ConductorManager.__new__(
                conductor_manager.ConductorManager)
            primitive = manager.object_backport_versions(context, objinst,
                                                         object_versions)
        finally:
            self.regs.use(self.regs.old)
        # The RPC layer would deserialize the answer, with the old classes.
        return base.NovaLiteObject.obj_from_primitive(primitive)


def test_an_old_process_gets_newer_objects_backported_by_the_conductor(
        registries, monkeypatch):
    release, regs = registries
    newer = [name for name, version in release['objects'].items()
             if versionutils.convert_version_to_tuple(
                 _current()[name].VERSION)
             > versionutils.convert_version_to_tuple(version)]
    if not newer:
        pytest.skip('no object changed since %s' % release['name'])
    serializer = base.NovaLiteObjectSerializer()
    indirection = _ConductorBackports(regs)
    monkeypatch.setattr(base.NovaLiteObject, 'indirection_api', indirection)
    ctxt = nl_context.get_admin_context()
    for name in newer:
        primitive = _populated(_current()[name]).obj_to_primitive()
        regs.use(regs.old)
        try:
            seen = serializer.deserialize_entity(ctxt, primitive)
        finally:
            regs.use(regs.current)
        assert seen.VERSION == release['objects'][name], name
    assert indirection.calls == len(newer)


def test_class_actions_are_answered_in_the_callers_versions(monkeypatch):
    """An old compute asks the conductor for an object (a remotable class
    method) with its version manifest: the answer comes backported."""
    found = objects.ImageMeta.from_image({
        'id': UUID, 'name': 'img',
        'properties': {'trait:CUSTOM_X': 'required', 'os_type': 'linux'}})
    monkeypatch.setattr(objects.ImageMeta, 'lookup',
                        classmethod(lambda cls, context: found),
                        raising=False)
    manager = conductor_manager.ConductorManager.__new__(
        conductor_manager.ConductorManager)
    ctxt = nl_context.get_admin_context()
    old = manager.object_class_action_versions(
        ctxt, 'ImageMeta', 'lookup',
        {'ImageMeta': '1.0', 'ImageMetaProps': '1.0'}, (), {})
    assert old['nova_lite_object.version'] == '1.0'
    props = old['nova_lite_object.data']['properties']
    assert props['nova_lite_object.version'] == '1.0'
    assert props['nova_lite_object.data'] == {'os_type': 'linux'}
    current = manager.object_class_action_versions(
        ctxt, 'ImageMeta', 'lookup',
        {'ImageMeta': '1.1', 'ImageMetaProps': '1.1'}, (), {})
    assert current is found
