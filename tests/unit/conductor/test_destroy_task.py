"""Instance.destroy and release_quota: the conductor's destroy task.

The remotable object methods computes and the API call stay (the wire
entries); their bodies hand the work to a task of ``conductor.tasks``.
The database steps are faked here and their order recorded; the
functional tests (tests/functional/db) run them on real databases.
"""

import types

import pytest

from nova_lite.conductor.tasks import destroy as destroy_task
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.quota import reservations

UUID = '1b4e28ba-2fa1-11d2-883f-0016d3cca427'


@pytest.fixture
def ctxt():
    return nl_context.RequestContext(user_id='u1', project_id='p1')


# Instance.destroy and release_quota


def test_instance_destroy_is_the_task_and_returns_sorted_providers(
        ctxt, monkeypatch):
    row = types.SimpleNamespace()
    seen = {}

    def destroy_in_db(context, uuid):
        seen['uuid'] = uuid
        return row, {'b', 'a'}

    monkeypatch.setattr(destroy_task, '_destroy_in_db', destroy_in_db)
    monkeypatch.setattr(objects.Instance, '_from_db_object',
                        staticmethod(lambda c, inst, r: seen.update(row=r)))
    instance = objects.Instance(ctxt, uuid=UUID)
    assert instance.destroy() == ['a', 'b']
    assert seen == {'uuid': UUID, 'row': row}


def test_instance_destroy_of_a_gone_instance_raises(ctxt, monkeypatch):
    def destroy_in_db(context, uuid):
        raise exception.InstanceNotFound(instance_id=uuid)

    monkeypatch.setattr(destroy_task, '_destroy_in_db', destroy_in_db)
    with pytest.raises(exception.InstanceNotFound):
        objects.Instance(ctxt, uuid=UUID).destroy()


def test_release_quota_is_the_task(ctxt, monkeypatch):
    calls = []
    monkeypatch.setattr(destroy_task, '_release_quota_in_db',
                        lambda c, uuid: calls.append(uuid) or True)
    assert objects.Instance(ctxt, uuid=UUID).release_quota() is True
    assert calls == [UUID]


def test_quota_is_released_once(monkeypatch):
    released = []
    monkeypatch.setattr(
        reservations, 'release_in_session',
        lambda session, project, user, deltas: released.append(
            (project, user)))
    monkeypatch.setattr(destroy_task.quota_resources, 'instance_row_deltas',
                        lambda row: {'instances': 1})
    row = types.SimpleNamespace(quota_released=False, project_id='p1',
                                user_id='u1')
    assert destroy_task._release_in_session('session', row) is True
    assert destroy_task._release_in_session('session', row) is False
    assert row.quota_released is True
    assert released == [('p1', 'u1')]
