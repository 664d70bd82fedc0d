"""InstanceGroup create, destroy, add_members: the server group task.

The remotable object methods computes and the API call stay (the wire
entries); their bodies hand the work to a task of ``conductor.tasks``.
The database steps are faked here and their order recorded; the
functional tests (tests/functional/db) run them on real databases.
"""

import types

import pytest

from nova_lite.conductor.tasks import server_group
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.quota import reservations

UUID = '1b4e28ba-2fa1-11d2-883f-0016d3cca427'


@pytest.fixture
def ctxt():
    return nl_context.RequestContext(user_id='u1', project_id='p1')


# InstanceGroup.create, destroy and add_members


@pytest.fixture
def quota(monkeypatch):
    state = types.SimpleNamespace(log=[], over=False, fail_create=False)

    def reserve(context, project_id, user_id, deltas, quota_class=None):
        state.log.append(('reserve', project_id, user_id, deltas))
        if state.over:
            raise exception.OverQuota(overs='server_groups', details='full')
        return reservations.Reservation('r-1', project_id, user_id, 1,
                                        deltas)

    def create_in_db(context, values, members, reservation):
        state.log.append(('create', values['name'], members,
                          reservation.uuid))
        if state.fail_create:
            raise exception.InstanceGroupNotFound(group_uuid='boom')
        return types.SimpleNamespace(values=values)

    monkeypatch.setattr(reservations, 'reserve', reserve)
    monkeypatch.setattr(reservations, 'rollback',
                        lambda c, uuid: state.log.append(('rollback', uuid)))
    monkeypatch.setattr(server_group, '_create_in_db', create_in_db)
    monkeypatch.setattr(
        objects.InstanceGroup, '_from_db_object',
        staticmethod(lambda c, group, row, members: state.log.append(
            ('loaded', members))))
    return state


def _group(ctxt, **values):
    values.setdefault('policy', 'affinity')
    return objects.InstanceGroup(ctxt, name='g', project_id='p1',
                                 user_id='u1', **values)


def test_group_create_reserves_then_commits_with_the_row(ctxt, quota):
    _group(ctxt, members=[UUID]).create()
    assert quota.log == [('reserve', 'p1', 'u1', {'server_groups': 1}),
                         ('create', 'g', [UUID], 'r-1'),
                         ('loaded', [UUID])]


def test_group_create_over_quota_writes_nothing(ctxt, quota):
    quota.over = True
    with pytest.raises(exception.OverQuota):
        _group(ctxt).create()
    assert [e[0] for e in quota.log] == ['reserve']


def test_group_create_failing_rolls_the_reservation_back(ctxt, quota):
    quota.fail_create = True
    with pytest.raises(exception.InstanceGroupNotFound):
        _group(ctxt).create()
    assert [e[0] for e in quota.log] == ['reserve', 'create', 'rollback']


def test_group_create_with_an_unknown_policy_reserves_nothing(ctxt, quota):
    with pytest.raises(exception.ObjectActionError):
        _group(ctxt, policy='sometimes').create()
    assert quota.log == []


class _Writer:
    """Stands in for db_api.writer: the task runs with a fake session."""

    def __init__(self, monkeypatch, module):
        self.session = object()
        for name in ('destroy', 'add_members'):
            if hasattr(module, name):
                fn = getattr(module, name)
                inner = getattr(fn, '__wrapped__', None)
                if inner is not None:
                    monkeypatch.setattr(module, name, self._wrap(inner))

    def _wrap(self, inner):
        def run(context, *args):
            in_transaction = types.SimpleNamespace(
                session=self.session, project_id=context.project_id,
                user_id=context.user_id, quota_class=context.quota_class)
            return inner(in_transaction, *args)
        return run


def test_group_destroy_gives_the_quota_back(ctxt, monkeypatch):
    _Writer(monkeypatch, server_group)
    row = types.SimpleNamespace(project_id='p1', user_id='u1')
    released = []
    monkeypatch.setattr(objects.InstanceGroup, '_delete_in_session',
                        staticmethod(lambda session, uuid: row))
    monkeypatch.setattr(
        reservations, 'release_in_session',
        lambda session, project, user, deltas: released.append(
            (project, user, deltas)))
    _group(ctxt, uuid=UUID).destroy()
    assert released == [('p1', 'u1', {'server_groups': 1})]


def test_add_members_checks_the_members_quota(ctxt, monkeypatch):
    _Writer(monkeypatch, server_group)
    row = types.SimpleNamespace(id=7, project_id='p1', user_id='u1')
    checks = []
    monkeypatch.setattr(objects.InstanceGroup, '_live_members_for_update',
                        staticmethod(lambda session, uuid: (row, ['m1'])))
    monkeypatch.setattr(objects.InstanceGroup, '_add_members_in_session',
                        staticmethod(lambda session, gid, uuids: uuids))
    monkeypatch.setattr(
        server_group.quota_limits, 'check_countable',
        lambda c, project, user, resource, used, adding, quota_class:
        checks.append((resource, used, adding)))
    assert objects.InstanceGroup.add_members(
        ctxt, UUID, ['m1', 'm2', 'm3']) == ['m1', 'm2', 'm3']
    assert checks == [('server_group_members', 1, 2)]
    checks.clear()
    objects.InstanceGroup.add_members(ctxt, UUID, ['m1'])
    assert checks == []


def test_add_members_over_quota_adds_nothing(ctxt, monkeypatch):
    _Writer(monkeypatch, server_group)
    row = types.SimpleNamespace(id=7, project_id='p1', user_id='u1')
    added = []
    monkeypatch.setattr(objects.InstanceGroup, '_live_members_for_update',
                        staticmethod(lambda session, uuid: (row, [])))
    monkeypatch.setattr(
        objects.InstanceGroup, '_add_members_in_session',
        staticmethod(lambda s, gid, uuids: added.extend(uuids)))

    def over(*args, **kwargs):
        raise exception.OverQuota(overs='server_group_members',
                                  details='full')

    monkeypatch.setattr(server_group.quota_limits, 'check_countable', over)
    with pytest.raises(exception.OverQuota):
        objects.InstanceGroup.add_members(ctxt, UUID, ['m1'])
    assert added == []
