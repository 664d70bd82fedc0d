"""Issue 9's objects on every backend: key pairs, instance actions and
their events, migrations, the new instance fields, the task timeout."""

import datetime

from oslo_utils import timeutils
from oslo_utils import uuidutils
import pytest
import sqlalchemy as sa

from nova_lite.conductor.tasks import timeouts
from nova_lite import context as nl_context
from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.objects import instance_action
from nova_lite.quota import limits as quota_limits


@pytest.fixture
def ctxt(database):
    return nl_context.RequestContext(user_id='u1', project_id='p1',
                                     is_admin=True, overwrite=False)


def _instance(ctxt, **values):
    try:
        flavor = objects.Flavor.get_by_flavor_id(ctxt, '1')
    except exception.FlavorNotFound:
        flavor = objects.Flavor(ctxt, flavorid='1', name='m1.tiny',
                                memory_mb=512, vcpus=1, root_gb=1)
        flavor.create()
    values = dict(dict(vm_state='active', task_state=None), **values)
    instance = objects.Instance(
        ctxt, uuid=uuidutils.generate_uuid(), project_id='p1', user_id='u1',
        display_name='vm', flavor=flavor, image_ref='img', host='host1',
        metadata={}, **values)
    instance.create()
    return instance


def _keypair(ctxt, name, user_id='u1'):
    keypair = objects.KeyPair(ctxt, name=name, user_id=user_id,
                              public_key='ssh-rsa AAAA x',
                              fingerprint='aa:bb', type='ssh')
    keypair.create()
    return keypair


def test_key_pairs_per_user_duplicates_and_quota(ctxt):
    quota_limits.set_limits(ctxt, {'key_pairs': 2}, project_id='p1')
    first = _keypair(ctxt, 'a')
    assert objects.KeyPair.get_by_name(ctxt, 'u1', 'a').id == first.id
    with pytest.raises(exception.KeyPairExists):
        _keypair(ctxt, 'a')
    _keypair(ctxt, 'b')
    with pytest.raises(exception.OverQuota):
        _keypair(ctxt, 'c')
    assert [k.name for k in objects.KeyPairList.get_by_user(ctxt, 'u1')] \
        == ['a', 'b']
    # Another user's names and counts are their own.
    other = nl_context.RequestContext(user_id='u2', project_id='p1',
                                      overwrite=False)
    _keypair(other, 'a', user_id='u2')
    first.destroy()
    with pytest.raises(exception.KeypairNotFound):
        objects.KeyPair.get_by_name(ctxt, 'u1', 'a')
    # The name is free again, and the quota counts live key pairs only.
    _keypair(ctxt, 'a')
    with pytest.raises(exception.KeypairNotFound):
        first.destroy()


def test_trusted_certs_round_trip(ctxt):
    instance = _instance(ctxt, trusted_certs=['cert-1', 'cert-2'])
    loaded = objects.Instance.get_by_uuid(ctxt, instance.uuid)
    assert loaded.trusted_certs == ['cert-1', 'cert-2']
    loaded.trusted_certs = None
    loaded.save()
    assert objects.Instance.get_by_uuid(
        ctxt, instance.uuid).trusted_certs is None
    assert _instance(ctxt).trusted_certs is None
    assert objects.Instance.get_by_uuid(
        ctxt, _instance(ctxt).uuid).trusted_certs is None


def test_actions_and_events(ctxt):
    instance = _instance(ctxt)
    ctxt.request_id = 'req-1'
    objects.InstanceAction.for_request(ctxt, instance.uuid,
                                       'reboot').create()
    objects.InstanceActionEvent.event_start(ctxt, instance.uuid,
                                            'compute_reboot_instance',
                                            host='host1')
    objects.InstanceActionEvent.event_finish(
        ctxt, instance.uuid, 'compute_reboot_instance', result='Error',
        traceback='Traceback', details='boom')
    [action] = objects.InstanceActionList.get_by_instance_uuid(
        ctxt, instance.uuid)
    assert (action.action, action.request_id, action.user_id,
            action.message) == ('reboot', 'req-1', 'u1', 'Error')
    [event] = objects.InstanceActionEventList.get_by_action(ctxt, action.id)
    assert (event.event, event.result, event.host, event.traceback) == (
        'compute_reboot_instance', 'Error', 'host1', 'Traceback')
    assert event.finish_time >= event.start_time
    ctxt.request_id = 'req-2'
    with pytest.raises(exception.InstanceActionNotFound):
        objects.InstanceActionEvent.event_start(ctxt, instance.uuid, 'x')


def test_actions_page_newest_first_and_move_with_their_events(ctxt,
                                                              monkeypatch):
    instance = _instance(ctxt)
    for n in range(3):
        ctxt.request_id = 'req-%d' % n
        objects.InstanceAction.for_request(ctxt, instance.uuid,
                                           'reboot').create()
    first = objects.InstanceAction.get_by_request_id(ctxt, instance.uuid,
                                                     'req-0')
    assert first.updated_at == first.start_time
    page = objects.InstanceActionList.get_page
    assert [a.request_id for a in page(ctxt, instance.uuid, 2)] == [
        'req-2', 'req-1']
    assert [a.request_id for a in page(ctxt, instance.uuid, 2,
                                       marker='req-1')] == ['req-0']
    with pytest.raises(exception.MarkerNotFound):
        page(ctxt, instance.uuid, 2, marker='req-9')
    # An event of the oldest action, an hour on, makes it the one
    # changed last (MySQL keeps whole seconds).
    ctxt.request_id = 'req-0'
    later = timeutils.utcnow().replace(tzinfo=None) + datetime.timedelta(
        hours=1)
    monkeypatch.setattr(instance_action, '_now', lambda: later)
    objects.InstanceActionEvent.event_start(ctxt, instance.uuid, 'e')
    started = objects.InstanceAction.get_by_request_id(
        ctxt, instance.uuid, 'req-0').updated_at
    assert started > first.updated_at
    objects.InstanceActionEvent.event_finish(ctxt, instance.uuid, 'e')
    finished = objects.InstanceAction.get_by_request_id(
        ctxt, instance.uuid, 'req-0').updated_at
    assert finished >= started
    since = started.replace(tzinfo=None)
    assert [a.request_id for a in page(ctxt, instance.uuid, 5,
                                       changes_since=since)] == ['req-0']
    # 2.66: changes-before, alone and with changes-since.
    before = since - datetime.timedelta(seconds=1)
    assert [a.request_id for a in page(ctxt, instance.uuid, 5,
                                       changes_before=before)] == [
        'req-2', 'req-1']
    assert [a.request_id for a in page(
        ctxt, instance.uuid, 5, changes_since=since,
        changes_before=finished.replace(tzinfo=None))] == ['req-0']


def test_migrations_page_newest_first(ctxt, monkeypatch):
    instance = _instance(ctxt)
    uuids = []
    for n in range(3):
        migration = objects.Migration(
            ctxt, uuid=uuidutils.generate_uuid(), instance_uuid=instance.uuid,
            source_compute='host%d' % n, migration_type='migration',
            status='migrating')
        migration.create()
        uuids.append(migration.uuid)
    page = objects.MigrationList.get_page
    assert [m.uuid for m in page(ctxt, {}, 2)] == uuids[:0:-1]
    assert [m.uuid for m in page(ctxt, {}, 2, marker=uuids[1])] == [
        uuids[0]]
    assert [m.uuid for m in page(ctxt, {'host': 'host1'}, 5)] == [uuids[1]]
    with pytest.raises(exception.MarkerNotFound):
        page(ctxt, {}, 2, marker=uuidutils.generate_uuid())
    # Never updated: no updated_at, so changes-since finds none (Nova).
    since = timeutils.utcnow().replace(tzinfo=None) - datetime.timedelta(
        hours=1)
    assert len(page(ctxt, {}, 5, changes_since=since)) == 0
    first = objects.Migration.get_by_uuid(ctxt, uuids[0])
    first.status = 'finished'
    first.save()
    assert [m.uuid for m in page(ctxt, {}, 5, changes_since=since)] == [
        uuids[0]]
    # 2.66: changes-before (the never updated are not found either).
    assert [m.uuid for m in page(
        ctxt, {}, 5, changes_before=since + datetime.timedelta(
            hours=2))] == [uuids[0]]
    assert len(page(ctxt, {}, 5, changes_before=since)) == 0


def test_migration_round_trip(ctxt):
    instance = _instance(ctxt)
    migration = objects.Migration(
        ctxt, uuid=uuidutils.generate_uuid(), instance_uuid=instance.uuid,
        source_compute='host1', source_node='n1', migration_type='resize',
        status='pre-migrating', old_instance_type_id=1,
        new_instance_type_id=2, user_id='u1', project_id='p1')
    migration.create()
    migration.status = 'migrating'
    migration.dest_compute = 'host2'
    migration.save()
    loaded = objects.Migration.get_by_instance_and_status(
        ctxt, instance.uuid, 'migrating')
    assert (loaded.uuid, loaded.dest_compute, loaded.hidden,
            loaded.cross_cell_move) == (migration.uuid, 'host2', False,
                                        False)
    found = objects.MigrationList.get_by_filters(ctxt, {'host': 'host2'})
    assert [m.id for m in found] == [migration.id]
    assert list(objects.MigrationList.get_by_filters(
        ctxt, {'status': ['done']})) == []


def test_instance_new_fields_round_trip(ctxt):
    instance = _instance(ctxt, description='web')
    loaded = objects.Instance.get_by_uuid(ctxt, instance.uuid)
    assert (loaded.locked, loaded.description, loaded.old_flavor) == (
        False, 'web', None)
    loaded.locked, loaded.locked_by = True, 'owner'
    loaded.new_flavor = loaded.flavor
    loaded.vm_state = fields.VMState.PAUSED
    loaded.save()
    again = objects.Instance.get_by_uuid(ctxt, instance.uuid)
    assert (again.locked, again.locked_by, again.vm_state) == (
        True, 'owner', 'paused')
    assert again.new_flavor.flavorid == '1'


@db_api.writer
def _age(context, uuid, seconds):
    when = (timeutils.utcnow().replace(tzinfo=None)
            - datetime.timedelta(seconds=seconds))
    context.session.execute(sa.update(models.Instance).where(
        models.Instance.uuid == uuid).values(updated_at=when))


def test_stuck_task_states_are_reset_with_a_fault(ctxt):
    stuck = _instance(ctxt, task_state=fields.TaskState.POWERING_OFF)
    recent = _instance(ctxt, task_state=fields.TaskState.REBOOTING)
    building = _instance(ctxt, task_state=fields.TaskState.SPAWNING)
    for instance in (stuck, building):
        _age(ctxt, instance.uuid, 700)
    assert timeouts.reset_stuck_tasks(ctxt, 600) == [stuck.uuid]
    loaded = objects.Instance.get_by_uuid(ctxt, stuck.uuid,
                                          expected_attrs=['fault'])
    assert (loaded.vm_state, loaded.task_state) == ('active', None)
    assert 'powering-off' in loaded.fault.message
    assert objects.Instance.get_by_uuid(
        ctxt, recent.uuid).task_state == 'rebooting'
    assert objects.Instance.get_by_uuid(
        ctxt, building.uuid).task_state == 'spawning'
