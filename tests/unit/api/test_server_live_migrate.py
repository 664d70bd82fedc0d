"""os-migrateLive, and show/abort/force_complete of a live migration in
progress: each microversion's body, every transition, every 409 and
400.

The API's checks run for real; the instance's conditional save, the
migration and service lookups, the action record and the RPC clients
are fakes, so nothing touches a database or a bus. The versions above
the API's advertised maximum are reached by raising the maximum.
"""

import oslo_messaging as messaging
import pytest

from nova_lite.api import api_version
from nova_lite.api.handlers import server_live_migrate
from nova_lite import objects
from nova_lite.objects import fields
from tests.unit.api import conftest
from tests.unit.api import test_server_moves
from tests.unit.api.test_server_moves import world as moves_world  # noqa

UUID = test_server_moves.UUID
ADMIN = test_server_moves.ADMIN
V = fields.VMState
T = fields.TaskState
MIGRATION_ID = 7


class FakeRPC(test_server_moves.FakeRPC):
    raises = None

    def can_send_live_migration(self):
        return self.speaks

    def live_migrate_instance(self, context, instance, **kwargs):
        self.sent.append(('live_migrate_instance', instance.uuid, (),
                          kwargs))
        if self.raises is not None:
            raise self.raises


@pytest.fixture
def world(moves_world, monkeypatch):  # noqa: F811
    world = moves_world
    world.compute, world.conductor = FakeRPC(), FakeRPC()
    monkeypatch.setattr(server_live_migrate.api, '_compute', world.compute)
    monkeypatch.setattr(server_live_migrate.api, '_conductor',
                        world.conductor)
    monkeypatch.setattr(server_live_migrate, 'compute',
                        test_server_moves.server_actions.compute)
    world.migration = objects.Migration(
        id=MIGRATION_ID, uuid='5b0e3c7a-8f7d-4b0e-9d3f-2a1c6e4b7d90',
        instance_uuid=UUID, status='running',
        migration_type='live-migration', source_compute='host1',
        source_node='node1', dest_compute='host2', dest_host='host2',
        dest_node='node2', created_at=None, updated_at=None)

    def get_by_id(context, migration_id):
        if migration_id != MIGRATION_ID:
            raise test_server_moves.exception.MigrationNotFound(
                migration_id=migration_id)
        return world.migration
    monkeypatch.setattr(objects.Migration, 'get_by_id', get_by_id)
    return world


def _call(api, method, path, body=None, version=None, context=ADMIN):
    headers = ({api_version.HEADER: 'compute %s' % version}
               if version else None)
    return api(context)(method, path, body, headers=headers)


def _live(api, args, version=None, context=ADMIN):
    return _call(api, 'POST', '/servers/%s/action' % UUID,
                 {'os-migrateLive': args}, version, context)


V21 = {'host': None, 'block_migration': False, 'disk_over_commit': False}


@pytest.mark.parametrize('vm_state', [V.ACTIVE, V.PAUSED])
def test_live_migrate_sets_migrating_and_casts(api, world, vm_state):
    world.set_state(vm_state)
    resp = _live(api, V21)
    assert resp.status_int == 202, resp.text
    assert world.stored['task_state'] == T.MIGRATING
    assert world.actions == ['live-migration']
    [(name, uuid, _args, kwargs)] = world.conductor.sent
    assert (name, uuid) == ('live_migrate_instance', UUID)
    assert kwargs == {'host': None, 'block_migration': False,
                      'disk_over_commit': False, 'wait': True}


@pytest.mark.parametrize('version,wait', [
    (None, True), ('2.30', True), ('2.34', False), ('2.68', False)])
def test_the_api_waits_for_the_checks_below_2_34(api, world, version,
                                                 wait):
    args = V21 if version is None else {'host': None,
                                        'block_migration': 'auto'}
    resp = _live(api, args, version)
    assert resp.status_int == 202, resp.text
    assert world.conductor.sent[0][3]['wait'] is wait


@pytest.mark.parametrize('error', [
    test_server_moves.exception.NoValidHost(reason='RamFilter: 2 -> 0.'),
    test_server_moves.exception.MigrationPreCheckError(reason='no room')])
def test_a_failed_check_is_400_below_2_34(api, world, error):
    world.conductor.raises = error
    resp = _live(api, dict(V21, host='host2'))
    assert resp.status_int == 400, resp.text
    assert error.format_message() in resp.text


def test_a_conductor_that_does_not_answer_in_time_is_still_202(api,
                                                              world):
    world.conductor.raises = messaging.MessagingTimeout('late')
    resp = _live(api, V21)
    assert resp.status_int == 202, resp.text


def test_live_migrate_to_a_named_host(api, world):
    resp = _live(api, dict(V21, host='host2', block_migration='true'))
    assert resp.status_int == 202, resp.text
    assert world.conductor.sent[0][3]['host'] == 'host2'
    assert world.conductor.sent[0][3]['block_migration'] is True


@pytest.mark.parametrize('vm_state,task_state', [
    (V.STOPPED, None), (V.SUSPENDED, None), (V.ERROR, None),
    (V.RESIZED, None), (V.ACTIVE, T.MIGRATING), (V.ACTIVE, T.REBOOTING)])
def test_live_migrate_from_a_wrong_state_is_409(api, world, vm_state,
                                               task_state):
    world.set_state(vm_state, task_state)
    resp = _live(api, V21)
    assert resp.status_int == 409, resp.text
    assert "Cannot 'os-migrateLive' instance" in resp.text
    assert world.conductor.sent == [] and world.saves == []


def test_live_migrate_when_pinned_below_is_409(api, world):
    world.conductor.speaks = False
    resp = _live(api, V21)
    assert resp.status_int == 409, resp.text
    assert 'RPC version 1.5' in resp.text
    assert world.saves == []


def test_live_migrate_by_a_member_is_403(api, world):
    resp = _live(api, V21, context=conftest.make_context())
    assert resp.status_int == 403, resp.text
    assert world.saves == []


@pytest.mark.parametrize('host,message', [
    ('host1', 'to current host (host1)'),
    ('nowhere', 'Compute host nowhere could not be found')])
def test_live_migrate_to_a_bad_host_is_400(api, world, host, message):
    resp = _live(api, dict(V21, host=host))
    assert resp.status_int == 400, resp.text
    assert message in resp.text
    assert world.saves == [] and world.conductor.sent == []


@pytest.mark.parametrize('version,args', [
    # 2.1: all three required, no "auto", no force.
    (None, {'host': None, 'block_migration': False}),
    (None, {'block_migration': False, 'disk_over_commit': False}),
    (None, dict(V21, block_migration='auto')),
    (None, dict(V21, force=True)),
    (None, dict(V21, block_migration='maybe')),
    # 2.25: disk_over_commit gone.
    ('2.25', dict(V21)),
    ('2.25', {'host': None}),
    ('2.25', {'host': None, 'block_migration': 'auto', 'force': False}),
    # 2.30: force with no host.
    ('2.30', {'host': None, 'block_migration': 'auto', 'force': True}),
    # 2.68: force gone again.
    ('2.68', {'host': 'host2', 'block_migration': 'auto', 'force': True}),
    (None, dict(V21, host='bad host!')),
])
def test_live_migrate_bad_body_is_400(api, world, version, args):
    resp = _live(api, args, version)
    assert resp.status_int == 400, resp.text
    assert world.saves == [] and world.conductor.sent == []


@pytest.mark.parametrize('version,args,expected', [
    ('2.25', {'host': None, 'block_migration': 'auto'},
     {'host': None, 'block_migration': None, 'disk_over_commit': None,
      'wait': True}),
    ('2.25', {'host': 'host2', 'block_migration': False},
     {'host': 'host2', 'block_migration': False, 'disk_over_commit': None,
      'wait': True}),
    # force is accepted, and the host still goes through the filters.
    ('2.30', {'host': 'host2', 'block_migration': 'auto', 'force': True},
     {'host': 'host2', 'block_migration': None, 'disk_over_commit': None,
      'wait': True}),
    ('2.68', {'host': None, 'block_migration': True},
     {'host': None, 'block_migration': True, 'disk_over_commit': None,
      'wait': False}),
])
def test_live_migrate_bodies_of_later_versions(api, world, version, args,
                                               expected):
    resp = _live(api, args, version)
    assert resp.status_int == 202, resp.text
    assert world.conductor.sent[0][3] == expected


# A live migration in progress: show (2.23), abort (2.24),
# force_complete (2.22).

def _one(suffix=''):
    return '/servers/%s/migrations/%s%s' % (UUID, MIGRATION_ID, suffix)


@pytest.mark.parametrize('method,suffix,body,version', [
    ('GET', '', None, '2.22'), ('DELETE', '', None, '2.23'),
    ('POST', '/action', {'force_complete': None}, '2.21')])
def test_routes_below_their_version_are_404(api, world, method, suffix,
                                            body, version):
    world.set_state(V.ACTIVE, T.MIGRATING)
    resp = _call(api, method, _one(suffix), body, version)
    assert resp.status_int == 404, resp.text
    assert world.compute.sent == []


def test_show_a_running_live_migration(api, world):
    resp = _call(api, 'GET', _one(), version='2.23')
    assert resp.status_int == 200, resp.text
    view = resp.json['migration']
    assert view['server_uuid'] == UUID and view['status'] == 'running'
    assert view['dest_compute'] == 'host2'
    assert 'memory_total_bytes' in view and 'uuid' not in view


@pytest.mark.parametrize('change', [{'status': 'completed'},
                                    {'migration_type': 'migration'},
                                    {'instance_uuid': UUID.replace('c', 'd')}])
def test_show_anything_else_is_404(api, world, change):
    for name, value in change.items():
        setattr(world.migration, name, value)
    resp = _call(api, 'GET', _one(), version='2.23')
    assert resp.status_int == 404, resp.text


def test_abort_a_running_live_migration(api, world):
    world.set_state(V.ACTIVE, T.MIGRATING)
    resp = _call(api, 'DELETE', _one(), version='2.24')
    assert resp.status_int == 202, resp.text
    assert world.actions == ['live_migration_cancel']
    [(name, uuid, args, _kwargs)] = world.compute.sent
    assert (name, uuid, args[0].id) == ('live_migration_abort', UUID,
                                        MIGRATION_ID)


def test_abort_when_not_migrating_is_409(api, world):
    resp = _call(api, 'DELETE', _one(), version='2.24')
    assert resp.status_int == 409, resp.text
    assert "Cannot 'abort' instance" in resp.text


@pytest.mark.parametrize('status', ['queued', 'preparing', 'completed'])
def test_abort_a_migration_not_running_is_400(api, world, status):
    world.set_state(V.ACTIVE, T.MIGRATING)
    world.migration.status = status
    resp = _call(api, 'DELETE', _one(), version='2.24')
    assert resp.status_int == 400, resp.text
    assert 'Cannot abort live migration' in resp.text
    assert world.compute.sent == []


def test_abort_an_unknown_migration_is_404(api, world):
    world.set_state(V.ACTIVE, T.MIGRATING)
    resp = _call(api, 'DELETE', '/servers/%s/migrations/99' % UUID,
                 version='2.24')
    assert resp.status_int == 404, resp.text


def test_force_complete_a_running_live_migration(api, world):
    world.set_state(V.ACTIVE, T.MIGRATING)
    resp = _call(api, 'POST', _one('/action'), {'force_complete': None},
                 '2.22')
    assert resp.status_int == 202, resp.text
    assert world.actions == ['live_migration_force_complete']
    assert world.compute.sent[0][0] == 'live_migration_force_complete'


@pytest.mark.parametrize('vm_state,task_state', [
    (V.ACTIVE, None), (V.PAUSED, T.MIGRATING)])
def test_force_complete_from_a_wrong_state_is_409(api, world, vm_state,
                                                  task_state):
    world.set_state(vm_state, task_state)
    resp = _call(api, 'POST', _one('/action'), {'force_complete': None},
                 '2.22')
    assert resp.status_int == 409, resp.text


@pytest.mark.parametrize('path,status', [
    (_one('/action'), 'queued'),
    ('/servers/%s/migrations/99/action' % UUID, 'running')])
def test_force_complete_of_a_bad_migration_is_400(api, world, path,
                                                  status):
    world.set_state(V.ACTIVE, T.MIGRATING)
    world.migration.status = status
    resp = _call(api, 'POST', path, {'force_complete': None}, '2.22')
    assert resp.status_int == 400, resp.text
    assert world.compute.sent == []


def test_force_complete_bad_body_is_400(api, world):
    world.set_state(V.ACTIVE, T.MIGRATING)
    resp = _call(api, 'POST', _one('/action'), {'force_complete': {}},
                 '2.22')
    assert resp.status_int == 400, resp.text


@pytest.mark.parametrize('status', ['queued', 'preparing', 'running'])
def test_abort_a_queued_or_preparing_migration_from_2_65(api, world,
                                                         status):
    world.set_state(V.ACTIVE, T.MIGRATING)
    world.migration.status = status
    resp = _call(api, 'DELETE', _one(), version='2.65')
    assert resp.status_int == 202, resp.text
    assert world.actions == ['live_migration_cancel']
    assert world.compute.sent[0][0] == 'live_migration_abort'


@pytest.mark.parametrize('version,status', [
    ('2.64', 'queued'), ('2.64', 'preparing'), ('2.65', 'completed'),
    ('2.65', 'post-migrating')])
def test_abort_around_2_65(api, world, version, status):
    world.set_state(V.ACTIVE, T.MIGRATING)
    world.migration.status = status
    resp = _call(api, 'DELETE', _one(), version=version)
    assert resp.status_int == 400, resp.text
    assert 'Cannot abort live migration' in resp.text
    assert world.compute.sent == []
