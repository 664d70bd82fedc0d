"""Provisioning's quota flow: reserve, create with the commit, roll back.

The quota engine and the database are fakes that record the order of
events; the functional tests run the real ones.
"""

import contextlib
import types

import pytest

from nova_lite.conductor import manager as conductor_manager
from nova_lite.conductor.tasks import provision
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.quota import reservations


def _template(metadata=None, **flavor_extra):
    flavor = objects.Flavor(flavorid='1', name='small', memory_mb=2048,
                            vcpus=2, root_gb=1, extra_specs=flavor_extra)
    return objects.Instance(
        project_id='p1', user_id='u1', display_name='vm', flavor=flavor,
        vcpus=2, memory_mb=2048, root_gb=1, ephemeral_gb=0,
        image_ref='img', vm_state='building', task_state='scheduling',
        metadata=metadata or {})


def _spec():
    return objects.RequestSpec(project_id='p1', user_id='u1',
                               num_instances=1)


@pytest.fixture
def events(monkeypatch):
    """Fakes for the quota engine and the writer; ``events.log`` lists
    what happened, in order."""
    state = types.SimpleNamespace(log=[], grant=None, fail_create=None,
                                  limits={'metadata_items': 128})

    def reserve(context, project_id, user_id, per_unit, min_count,
                max_count, quota_class=None):
        state.log.append(('reserve', per_unit, min_count, max_count))
        count = state.grant if state.grant is not None else max_count
        if count < min_count:
            raise exception.OverQuota(overs='instances', details='full')
        return reservations.Reservation(
            'r-1', project_id, user_id, count,
            {r: a * count for r, a in per_unit.items()})

    @contextlib.contextmanager
    def using(context):
        state.log.append('begin')
        try:
            yield 'session'
        except Exception:
            state.log.append('abort')
            raise
        state.log.append('commit transaction')

    def create_instances(session, instances, build_owner=None):
        if state.fail_create:
            raise state.fail_create
        state.log.append(('create instances', session, len(instances)))

    monkeypatch.setattr(reservations, 'reserve', reserve)
    monkeypatch.setattr(reservations, 'commit_in_session',
                        lambda session, r: state.log.append(
                            ('commit', session, r.uuid)))
    monkeypatch.setattr(reservations, 'rollback',
                        lambda ctxt, uuid: state.log.append(
                            ('rollback', uuid)))
    monkeypatch.setattr(provision.db_api.writer, 'using', using)
    monkeypatch.setattr(objects.Instance, 'create_all_in_session',
                        create_instances)
    monkeypatch.setattr(objects.RequestSpec, 'create_all_in_session',
                        lambda session, specs: state.log.append(
                            ('create specs', session,
                             [s.num_instances for s in specs])))
    monkeypatch.setattr(objects.InstanceAction, 'create_all_in_session',
                        lambda session, actions: state.log.append(
                            ('create actions', session,
                             [a.action for a in actions])))
    monkeypatch.setattr(provision.quota_limits, 'get_limits',
                        lambda *a: (state.limits, state.limits))
    return state


def _provision(min_count=1, max_count=1, template=None):
    return provision.provision_instances(
        nl_context.RequestContext(user_id='u1', project_id='p1'),
        template or _template(), _spec(), min_count, max_count)


def test_reserves_for_max_count_and_commits_with_the_records(events):
    created = _provision(1, 2)
    assert len(created) == 2
    assert events.log == [
        ('reserve', {'instances': 1, 'cores': 2, 'ram': 2048}, 1, 2),
        'begin', ('create instances', 'session', 2),
        ('create actions', 'session', ['create', 'create']),
        ('create specs', 'session', [1, 1]),
        ('commit', 'session', 'r-1'), 'commit transaction']


def test_creates_only_what_the_quota_granted(events):
    events.grant = 3
    created = _provision(2, 5)
    assert [i.launch_index for i in created] == [0, 1, 2]
    assert [i.display_name for i in created] == ['vm-1', 'vm-2', 'vm-3']


def test_video_ram_counts_against_ram(events):
    _provision(template=_template(**{'hw_video:ram_max_mb': '128'}))
    assert events.log[0][1]['ram'] == 2176


def test_over_quota_creates_and_rolls_back_nothing(events):
    events.grant = 0
    with pytest.raises(exception.OverQuota):
        _provision(1, 1)
    assert [e[0] for e in events.log] == ['reserve']


def test_a_failure_before_the_commit_rolls_the_reservation_back(events):
    events.fail_create = exception.NovaLiteException('disk full')
    with pytest.raises(exception.NovaLiteException, match='disk full'):
        _provision(1, 3)
    assert events.log[1:] == ['begin', 'abort', ('rollback', 'r-1')]


def test_too_much_metadata_is_refused_before_reserving(events):
    events.limits = {'metadata_items': 2}
    with pytest.raises(exception.MetadataLimitExceeded) as caught:
        _provision(template=_template(metadata={'a': '1', 'b': '2',
                                                'c': '3'}))
    assert caught.value.code == 403
    assert events.log == []
    events.limits = {'metadata_items': -1}
    _provision(template=_template(metadata={'a': '1', 'b': '2', 'c': '3'}))


def test_fault_injection_pauses_between_reserve_and_commit(events, conf,
                                                           monkeypatch):
    conf.config(group='quota', reservation_commit_delay=7)
    monkeypatch.setattr(provision.time, 'sleep',
                        lambda seconds: events.log.append(('sleep',
                                                           seconds)))
    _provision()
    assert [e[0] if isinstance(e, tuple) else e
            for e in events.log[:3]] == ['reserve', 'sleep', 'begin']
    assert events.log[1] == ('sleep', 7)


def test_conductor_periodic_task_expires_reservations(monkeypatch):
    expired = []
    monkeypatch.setattr(conductor_manager.quota_reservations,
                        'expire_reservations',
                        lambda ctxt: expired.append(ctxt) or 2)
    monkeypatch.setattr(conductor_manager.request_keys, 'purge',
                        lambda ctxt: expired.append(('keys', ctxt)) or 0)
    manager = conductor_manager.ConductorManager.__new__(
        conductor_manager.ConductorManager)
    manager._expire_reservations('ctxt')
    assert expired == ['ctxt', ('keys', 'ctxt')]
