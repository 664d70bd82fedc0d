"""createImage, createBackup, shelve, shelveOffload and unshelve through
the API: every
transition the API makes, every 409, the microversion gates (tested with
the API's maximum patched up to them) and the image registered.

The shelve API's checks run for real; the instance's conditional save,
the image registry, the action record and the RPC clients are fakes, so
nothing touches a database or a bus.
"""

import types

import pytest
from tempest.lib.api_schema.response.compute.v2_1 import (
    servers as servers_21)
from tempest.lib.api_schema.response.compute.v2_45 import (
    images as images_245)
from tempest.lib.api_schema.response.compute.v2_45 import (
    servers as servers_245)

from nova_lite.api import api_version
from nova_lite.api.handlers import server_actions
from nova_lite.api.handlers import server_backup
from nova_lite.api.handlers import server_shelve
from nova_lite.compute import shelve_api
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.quota import limits as quota_limits
from tests.unit.api import conftest
from tests.unit.api import fakes
from tests.unit.api.shapes import conftest as shapes

UUID = 'c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30'
BASE_IMAGE = '70a599e0-31e7-49b7-b260-868f441e862b'
SNAPSHOT = '0a4e7c36-0d39-4d4e-8f0b-0c9f5f3b2d11'
ADMIN = conftest.make_context('admin', 'adminproj')
MEMBER = conftest.make_context()
V = fields.VMState
T = fields.TaskState


class FakeRPC:
    def __init__(self):
        self.sent = []
        self.speaks = True

    def can_send_shelve(self):
        return self.speaks

    def can_send_backup(self):
        return self.speaks

    def __getattr__(self, name):
        def send(context, instance, *args, **kwargs):
            self.sent.append((name, instance.uuid, args, kwargs))
        return send


@pytest.fixture
def world(monkeypatch):
    w = types.SimpleNamespace(saves=[], actions=[], images={}, deleted=[],
                              metadata_items=128)
    w.instance = fakes.instance(host='host1', node='node1',
                                vm_state=V.ACTIVE, task_state=None)
    w.instance.obj_reset_changes(recursive=True)
    w.stored = {'vm_state': V.ACTIVE, 'task_state': None}
    w.compute, w.conductor = FakeRPC(), FakeRPC()
    monkeypatch.setattr(server_actions, 'compute',
                        fakes.FakeComputeAPI([w.instance]))
    monkeypatch.setattr(server_shelve.api, '_compute', w.compute)
    monkeypatch.setattr(server_shelve.api, '_conductor', w.conductor)
    monkeypatch.setattr(server_backup.api, '_compute', w.compute)

    def save(self, expected_task_state=None, expected_vm_state=None):
        if expected_task_state is not None and (
                w.stored['task_state'] not in expected_task_state):
            raise exception.UnexpectedTaskStateError(
                instance_uuid=self.uuid, expected=expected_task_state,
                actual=w.stored['task_state'])
        if expected_vm_state is not None and (
                w.stored['vm_state'] not in expected_vm_state):
            raise exception.InstanceInvalidState(
                instance_uuid=self.uuid, attr='vm_state',
                state=w.stored['vm_state'], method='save')
        changes = self.obj_get_changes()
        w.saves.append(changes)
        w.stored.update(changes)
        self.obj_reset_changes()

    def create_snapshot(cls, context, name, owner, min_disk, min_ram,
                        properties):
        w.images[SNAPSHOT] = dict(name=name, owner=owner, min_disk=min_disk,
                                  min_ram=min_ram, properties=properties)
        return objects.Image(id=SNAPSHOT, name=name, status='queued')

    def get_image(context, image_id):
        if image_id != BASE_IMAGE:
            raise exception.ImageNotFound(image_id=image_id)
        return {'id': BASE_IMAGE, 'min_disk': 0, 'min_ram': 128,
                'properties': {'hw_disk_bus': 'virtio',
                               'image_type': 'base'}}

    # host1 in zone nova, host2 in az2, host3 disabled.
    services = [objects.Service(host=h, binary='nova-lite-compute',
                                disabled=(h == 'host3'))
                for h in ('host1', 'host2', 'host3')]
    aggregate = objects.Aggregate(name='a', hosts=['host2'],
                                  metadata={'availability_zone': 'az2'})
    w.spec = objects.RequestSpec(instance_uuid=UUID, availability_zone=None)

    def get_limits(context, project_id, user_id, quota_class=None):
        limits = {'metadata_items': w.metadata_items}
        return limits, limits

    monkeypatch.setattr(objects.Instance, 'save', save)
    monkeypatch.setattr(objects.InstanceAction, 'create',
                        lambda self: w.actions.append(self.action))
    monkeypatch.setattr(objects.Image, 'create_snapshot',
                        classmethod(create_snapshot))
    monkeypatch.setattr(objects.Image, 'delete_by_id', classmethod(
        lambda cls, context, image_id: w.deleted.append(image_id)))
    monkeypatch.setattr(shelve_api.image_api, 'get', get_image)
    monkeypatch.setattr(objects.ServiceList, 'get_all', classmethod(
        lambda cls, context: services))
    monkeypatch.setattr(objects.AggregateList, 'get_all', classmethod(
        lambda cls, context: [aggregate]))
    monkeypatch.setattr(objects.RequestSpec, 'get_by_instance_uuid',
                        classmethod(lambda cls, context, uuid: w.spec))
    monkeypatch.setattr(objects.RequestSpec, 'save',
                        lambda self: w.saves.append(
                            {'spec_zone': self.availability_zone}))
    monkeypatch.setattr(quota_limits, 'get_limits', get_limits)

    def set_state(vm_state, task_state=None, host='host1'):
        w.instance.vm_state = vm_state
        w.instance.task_state = task_state
        w.instance.host = host
        w.instance.obj_reset_changes(recursive=True)
        w.stored.update(vm_state=vm_state, task_state=task_state)
    w.set_state = set_state
    return w


@pytest.fixture
def max_version(monkeypatch):
    """Raise the API's maximum to ``version`` (another change raises it
    for real); requests then ask for a version with ``_act(..., version)``."""
    def raise_to(version):
        minor = int(version.split('.')[1])
        monkeypatch.setattr(api_version, 'VERSIONS',
                            ['2.%d' % m for m in range(1, minor + 1)])
    return raise_to


def _act(api, body, context=ADMIN, version=None):
    headers = ({'OpenStack-API-Version': 'compute %s' % version}
               if version else None)
    return api(context)('POST', '/servers/%s/action' % UUID, body,
                        headers=headers)


# -- createImage ---------------------------------------------------------

@pytest.mark.parametrize('vm_state', [V.ACTIVE, V.STOPPED, V.PAUSED,
                                      V.SUSPENDED])
def test_create_image_registers_the_snapshot_and_casts(api, world,
                                                       vm_state):
    world.set_state(vm_state)
    resp = _act(api, {'createImage': {'name': 'snap',
                                      'metadata': {'k': 'v'}}}, MEMBER)
    assert resp.status_int == 202, resp.text
    assert resp.headers['Location'].endswith('/images/' + SNAPSHOT)
    assert resp.body == b''
    assert world.stored['task_state'] == T.IMAGE_SNAPSHOT
    assert world.actions == ['createImage']
    assert world.compute.sent == [('snapshot_instance', UUID, (SNAPSHOT,),
                                   {})]
    image = world.images[SNAPSHOT]
    assert image['name'] == 'snap' and image['owner'] == 'proj1'
    # Nova's properties: the base image's inheritable ones, the
    # snapshot's own, then the caller's; min_disk at least the flavor's.
    assert image['properties'] == {
        'hw_disk_bus': 'virtio', 'image_type': 'snapshot',
        'instance_uuid': UUID, 'user_id': 'demo',
        'base_image_ref': BASE_IMAGE, 'k': 'v'}
    assert (image['min_disk'], image['min_ram']) == (1, 128)


def test_create_image_from_2_45_answers_the_image_id(api, world,
                                                     max_version):
    max_version('2.45')
    resp = _act(api, {'createImage': {'name': 'snap'}}, version='2.45')
    assert resp.status_int == 202, resp.text
    assert resp.json == {'image_id': SNAPSHOT}
    assert 'Location' not in resp.headers
    shapes.check_shape(resp, images_245.create_image)
    resp = _act(api, {'createImage': {'name': 'snap'}}, version='2.44')
    assert resp.status_int == 409   # a snapshot is already running
    world.set_state(V.ACTIVE)
    resp = _act(api, {'createImage': {'name': 'snap'}}, version='2.44')
    assert resp.status_int == 202 and 'Location' in resp.headers


@pytest.mark.parametrize('vm_state,task_state', [
    (V.ERROR, None), (V.RESIZED, None), (V.SHELVED, None),
    (V.ACTIVE, T.IMAGE_SNAPSHOT), (V.ACTIVE, T.REBOOTING)])
def test_create_image_from_a_wrong_state_is_409(api, world, vm_state,
                                                task_state):
    world.set_state(vm_state, task_state)
    resp = _act(api, {'createImage': {'name': 'snap'}})
    assert resp.status_int == 409, resp.text
    assert "Cannot 'createImage' instance %s while it is in" % UUID \
        in resp.text
    assert world.images == {} and world.compute.sent == []


def test_create_image_losing_a_race_deletes_the_image(api, world):
    world.stored['task_state'] = T.REBOOTING
    resp = _act(api, {'createImage': {'name': 'snap'}})
    assert resp.status_int == 409, resp.text
    assert world.deleted == [SNAPSHOT] and world.compute.sent == []


def test_create_image_metadata_counts_against_metadata_items(api, world):
    world.metadata_items = 1
    resp = _act(api, {'createImage': {'name': 'snap',
                                      'metadata': {'a': '1', 'b': '2'}}})
    assert resp.status_int == 403, resp.text
    assert 'metadata_items' in resp.text
    assert world.images == {} and world.saves == []


def test_create_image_metadata_not_counted_from_2_39(api, world):
    """Nova's API stopped checking a snapshot's metadata against the
    metadata_items quota at 2.39 (the image service has its own)."""
    world.metadata_items = 1
    resp = _act(api, {'createImage': {'name': 'snap',
                                      'metadata': {'a': '1', 'b': '2'}}},
                version='2.39')
    assert resp.status_int == 202, resp.text
    assert world.images[SNAPSHOT]['properties']['b'] == '2'


@pytest.mark.parametrize('body', [
    {'createImage': {}}, {'createImage': {'name': ''}},
    {'createImage': {'name': 'x', 'extra': 1}},
    {'createImage': {'name': 'x', 'metadata': {'k': 1}}}])
def test_create_image_bad_body_is_400(api, world, body):
    assert _act(api, body).status_int == 400
    assert world.images == {}


def test_snapshots_and_shelving_are_409_while_pinned(api, world):
    world.compute.speaks = False
    for body in ({'createImage': {'name': 'snap'}}, {'shelve': None}):
        resp = _act(api, body)
        assert resp.status_int == 409, resp.text
        assert 'upgrade_levels' in resp.text
    world.set_state(V.SHELVED_OFFLOADED, host=None)
    world.compute.speaks = True
    world.conductor.speaks = False
    resp = _act(api, {'unshelve': None})
    assert resp.status_int == 409 and 'upgrade_levels' in resp.text
    assert world.images == {} and world.saves == []


# -- createBackup ----------------------------------------------------------

def _backup(name='nightly', backup_type='daily', rotation=2, **extra):
    return {'createBackup': dict(name=name, backup_type=backup_type,
                                 rotation=rotation, **extra)}


@pytest.mark.parametrize('vm_state', [V.ACTIVE, V.STOPPED, V.PAUSED,
                                      V.SUSPENDED])
def test_create_backup_registers_a_backup_image_and_casts(api, world,
                                                          vm_state):
    world.set_state(vm_state)
    resp = _act(api, _backup(metadata={'purpose': 'dr'}), context=MEMBER)
    shapes.check_shape(resp, servers_21.create_backup)
    assert resp.headers['Location'].endswith('/images/' + SNAPSHOT)
    assert resp.body == b''
    image = world.images[SNAPSHOT]
    assert image['name'] == 'nightly'
    assert image['owner'] == 'proj1'
    props = image['properties']
    assert (props['image_type'], props['backup_type']) == ('backup',
                                                           'daily')
    assert props['instance_uuid'] == UUID and props['purpose'] == 'dr'
    assert world.saves == [{'task_state': T.IMAGE_BACKUP}]
    assert world.actions == ['createBackup']
    assert world.compute.sent == [('backup_instance', UUID,
                                   (SNAPSHOT, 'daily', 2), {})]


def test_create_backup_rotation_0_has_no_location_before_2_45(api, world):
    """Nova's answer: the backup is deleted by its own rotation, so
    there is nothing to point at."""
    resp = _act(api, _backup(rotation='0'))
    assert resp.status_int == 202
    assert 'Location' not in resp.headers
    assert world.compute.sent[0][2] == (SNAPSHOT, 'daily', 0)


def test_create_backup_from_2_45_answers_the_image_id(api, world,
                                                     max_version):
    max_version('2.45')
    for rotation in (0, 3):
        resp = _act(api, _backup(rotation=rotation), version='2.45')
        assert resp.status_int == 202
        assert resp.json == {'image_id': SNAPSHOT}
        assert 'Location' not in resp.headers
        shapes.check_shape(resp, servers_245.create_backup)
        world.set_state(V.ACTIVE)


@pytest.mark.parametrize('vm_state,task_state', [
    (V.BUILDING, T.SCHEDULING), (V.ERROR, None), (V.SHELVED, None),
    (V.ACTIVE, T.REBOOTING), (V.RESIZED, None)])
def test_create_backup_from_a_wrong_state_is_409(api, world, vm_state,
                                                 task_state):
    world.set_state(vm_state, task_state)
    resp = _act(api, _backup())
    assert resp.status_int == 409
    assert "Cannot 'createBackup' instance %s" % UUID in resp.text
    assert world.images == {} and world.compute.sent == []


@pytest.mark.parametrize('body,words', [
    ({'name': 'b', 'backup_type': 'daily'}, "'rotation' is a required"),
    ({'name': 'b', 'rotation': 1}, "'backup_type' is a required"),
    ({'backup_type': 'daily', 'rotation': 1}, "'name' is a required"),
    ({'name': 'b', 'backup_type': 'daily', 'rotation': -1}, 'rotation'),
    ({'name': 'b', 'backup_type': 'daily', 'rotation': 'two'},
     'rotation'),
    ({'name': ' b', 'backup_type': 'daily', 'rotation': 1}, 'name'),
    ({'name': 'b', 'backup_type': 7, 'rotation': 1}, 'backup_type'),
    ({'name': 'b', 'backup_type': 'daily', 'rotation': 1, 'x': 1}, 'x'),
])
def test_create_backup_bad_body_is_400_saying_why(api, world, body, words):
    resp = _act(api, {'createBackup': body})
    assert resp.status_int == 400
    assert words in resp.text, resp.text
    assert world.images == {}


def test_create_backup_metadata_counts_until_2_39(api, world, max_version):
    world.metadata_items = 1
    body = _backup(metadata={'a': '1', 'b': '2'})
    resp = _act(api, body)
    assert resp.status_int == 403 and 'metadata' in resp.text.lower()
    max_version('2.39')
    assert _act(api, body, version='2.39').status_int == 202


def test_create_backup_is_409_while_computes_are_pinned(api, world):
    world.compute.speaks = False
    resp = _act(api, _backup())
    assert resp.status_int == 409
    assert 'upgrade_levels' in resp.text
    assert world.images == {} and world.saves == []


def test_create_backup_of_another_project_is_404(api, world):
    other = conftest.make_context('eve', 'proj2')
    assert _act(api, _backup(), context=other).status_int == 404
    reader = conftest.make_context('viewer', 'proj1', ['reader'])
    resp = _act(api, _backup(), context=reader)
    assert resp.status_int == 403
    assert 'os_compute_api:os-create-backup' in resp.text


# -- shelve / shelveOffload ------------------------------------------------

@pytest.mark.parametrize('vm_state', [V.ACTIVE, V.STOPPED, V.PAUSED,
                                      V.SUSPENDED])
def test_shelve_registers_name_shelved_and_casts(api, world, vm_state):
    world.set_state(vm_state)
    resp = _act(api, {'shelve': None}, MEMBER)
    assert resp.status_int == 202, resp.text
    assert world.stored['task_state'] == T.SHELVING
    assert world.images[SNAPSHOT]['name'] == 'vm1-shelved'
    assert world.actions == ['shelve']
    assert world.compute.sent == [('shelve_instance', UUID, (SNAPSHOT,),
                                   {'clean_shutdown': True})]


@pytest.mark.parametrize('vm_state,task_state', [
    (V.SHELVED, None), (V.SHELVED_OFFLOADED, None), (V.ERROR, None),
    (V.ACTIVE, T.SHELVING)])
def test_shelve_from_a_wrong_state_is_409(api, world, vm_state,
                                          task_state):
    world.set_state(vm_state, task_state)
    resp = _act(api, {'shelve': None})
    assert resp.status_int == 409, resp.text
    assert "Cannot 'shelve' instance" in resp.text
    assert world.images == {} and world.compute.sent == []


def test_shelve_a_locked_server_is_409_for_its_owner(api, world):
    world.instance.locked = True
    resp = _act(api, {'shelve': None}, MEMBER)
    assert resp.status_int == 409 and 'locked' in resp.text
    assert world.images == {}


def test_shelve_offload_is_for_administrators(api, world):
    world.set_state(V.SHELVED)
    assert _act(api, {'shelveOffload': None}, MEMBER).status_int == 403
    resp = _act(api, {'shelveOffload': None})
    assert resp.status_int == 202, resp.text
    assert world.stored['task_state'] == T.SHELVING_OFFLOADING
    assert world.actions == ['shelveOffload']
    assert world.compute.sent[0][0] == 'shelve_offload_instance'


@pytest.mark.parametrize('vm_state', [V.ACTIVE, V.SHELVED_OFFLOADED])
def test_shelve_offload_needs_shelved(api, world, vm_state):
    world.set_state(vm_state)
    resp = _act(api, {'shelveOffload': None})
    assert resp.status_int == 409, resp.text
    assert world.compute.sent == []


# -- unshelve --------------------------------------------------------------

def test_unshelve_of_a_shelved_server_powers_it_on_where_it_is(api, world):
    world.set_state(V.SHELVED)
    resp = _act(api, {'unshelve': None}, MEMBER)
    assert resp.status_int == 202, resp.text
    assert world.stored['task_state'] == T.UNSHELVING
    assert world.compute.sent == [('unshelve_instance', UUID, ('host1',),
                                   {})]
    assert world.conductor.sent == []


def test_unshelve_of_an_offloaded_server_goes_to_the_conductor(api,
                                                               world):
    world.set_state(V.SHELVED_OFFLOADED, host=None)
    resp = _act(api, {'unshelve': None}, MEMBER)
    assert resp.status_int == 202, resp.text
    assert world.actions == ['unshelve']
    assert world.conductor.sent == [
        ('unshelve_instance', UUID, (),
         {'availability_zone': None, 'host': None})]


def test_unshelve_of_an_active_server_is_nova_s_409(api, world):
    resp = _act(api, {'unshelve': None})
    assert resp.status_int == 409
    assert ("Cannot 'unshelve' instance %s while it is in vm_state active"
            % UUID) in resp.text


def test_unshelve_zone_needs_2_77(api, world, max_version):
    world.set_state(V.SHELVED_OFFLOADED, host=None)
    body = {'unshelve': {'availability_zone': 'az2'}}
    assert _act(api, body).status_int == 400
    max_version('2.77')
    assert _act(api, body, version='2.76').status_int == 400
    resp = _act(api, body, MEMBER, version='2.77')
    assert resp.status_int == 202, resp.text
    assert world.conductor.sent[0][3] == {'availability_zone': 'az2',
                                          'host': None}


def test_unshelve_zone_at_the_real_boundary(api, world):
    """2.77 is advertised now: no patched maximum."""
    world.set_state(V.SHELVED_OFFLOADED, host=None)
    body = {'unshelve': {'availability_zone': 'az2'}}
    assert _act(api, body, MEMBER, version='2.76').status_int == 400
    resp = _act(api, body, MEMBER, version='2.77')
    assert resp.status_int == 202, resp.text
    assert world.conductor.sent[-1][3] == {'availability_zone': 'az2',
                                           'host': None}


def test_unshelve_zone_of_a_shelved_server_is_409(api, world, max_version):
    max_version('2.77')
    world.set_state(V.SHELVED)
    resp = _act(api, {'unshelve': {'availability_zone': 'az2'}},
                version='2.77')
    assert resp.status_int == 409
    assert 'must be SHELVED_OFFLOADED' in resp.text


def test_unshelve_host_needs_2_91_and_an_administrator(api, world):
    # At the API's real maximum (2.91 is advertised).
    world.set_state(V.SHELVED_OFFLOADED, host=None)
    body = {'unshelve': {'host': 'host2'}}
    assert _act(api, body, version='2.90').status_int == 400
    assert _act(api, body, MEMBER, version='2.91').status_int == 403
    resp = _act(api, {'unshelve': {'host': 'nope'}}, version='2.91')
    assert resp.status_int == 400
    assert 'nope' in resp.text
    resp = _act(api, body, version='2.91')
    assert resp.status_int == 202, resp.text
    assert world.conductor.sent == [
        ('unshelve_instance', UUID, (),
         {'availability_zone': None, 'host': 'host2'})]


def test_unshelve_to_a_disabled_host_is_left_to_the_scheduler(api, world):
    """Nova's API checks only that the host exists: ComputeFilter then
    refuses a disabled one, so the request is accepted here."""
    world.set_state(V.SHELVED_OFFLOADED, host=None)
    resp = _act(api, {'unshelve': {'host': 'host3'}}, version='2.91')
    assert resp.status_int == 202, resp.text
    assert world.conductor.sent == [
        ('unshelve_instance', UUID, (),
         {'availability_zone': None, 'host': 'host3'})]


def test_unshelve_to_an_unknown_zone_is_400(api, world, max_version):
    max_version('2.77')
    world.set_state(V.SHELVED_OFFLOADED, host=None)
    resp = _act(api, {'unshelve': {'availability_zone': 'nowhere'}},
                version='2.77')
    assert resp.status_int == 400
    assert 'availability zone is not available' in resp.text
    assert world.conductor.sent == [] and world.saves == []


def test_unshelve_host_outside_the_pinned_zone_is_409(api, world):
    world.set_state(V.SHELVED_OFFLOADED, host=None)
    world.spec.availability_zone = 'nova'
    resp = _act(api, {'unshelve': {'host': 'host2'}}, version='2.91')
    assert resp.status_int == 409
    assert 'is not in the availability zone' in resp.json[
        'conflictingRequest']['message']
    # The zone given with it wins; a null zone unpins the server first.
    resp = _act(api, {'unshelve': {'host': 'host2',
                                   'availability_zone': None}},
                version='2.91')
    assert resp.status_int == 202, resp.text
    assert world.spec.availability_zone is None
    assert {'spec_zone': None} in world.saves
