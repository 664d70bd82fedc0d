"""Reservation logic over fake usage rows: no database.

The SQL (locking, recounting) is replaced by fakes that record what was
asked; the functional tests run the real thing on three backends.
"""

import datetime
import types

import pytest

from nova_lite import exception
from nova_lite.quota import limits as quota_limits
from nova_lite.quota import reservations
from nova_lite.quota import usages

NOW = datetime.datetime(2026, 3, 1, 12, 0, 0)
RESOURCES = ('cores', 'instances', 'ram')
PER_VM = {'instances': 1, 'cores': 2, 'ram': 1024}
UNLIMITED = {r: -1 for r in RESOURCES}
LIMITS = [(UNLIMITED, UNLIMITED)]


def row(in_use=0, reserved=0, until_refresh=None, refreshed_at=NOW):
    return types.SimpleNamespace(in_use=in_use, reserved=reserved,
                                 until_refresh=until_refresh,
                                 refreshed_at=refreshed_at)


class FakeSession:
    def __init__(self):
        self.added = []

    def add(self, obj):
        self.added.append(obj)

    def flush(self):
        pass


@pytest.fixture
def clock(monkeypatch):
    """usages.utcnow, under the test's control."""
    state = types.SimpleNamespace(now=NOW)
    monkeypatch.setattr(usages, 'utcnow', lambda: state.now)
    return state


@pytest.fixture
def store(monkeypatch, clock):
    """Usage rows by (user, resource); counts a recount would write."""
    state = types.SimpleNamespace(
        rows={(u, r): row() for u in ('', 'u1') for r in RESOURCES},
        counted=None, refreshes=0)

    def lock(session, project_id, user_ids, resources, create=False):
        return {key: r for key, r in state.rows.items()
                if key[1] in resources}

    def lock_values(session, project_id, user_ids, resources):
        return {key: usages.Values(r.in_use, r.reserved, r.until_refresh,
                                   r.refreshed_at)
                for key, r in lock(session, project_id, user_ids,
                                   resources).items()}

    def add_reserved(session, project_id, user_id, resources, amounts):
        for (user, resource), r in state.rows.items():
            if user in ('', user_id) and resource in resources:
                r.reserved += amounts.get(resource, 0)
                if r.until_refresh is not None:
                    r.until_refresh -= 1

    def apply_reserved(session, project_id, user_id, amounts, commit):
        for (user, resource), r in state.rows.items():
            if user in ('', user_id) and resource in amounts:
                r.reserved = max(r.reserved - amounts[resource], 0)
                if commit and r.in_use >= 0:
                    r.in_use += amounts[resource]

    def refresh(session, project_id, resources, now=None):
        state.refreshes += 1
        for key, value in (state.counted or {}).items():
            state.rows[key].in_use = value
        for r in state.rows.values():
            r.refreshed_at = now
        return dict(state.rows)

    monkeypatch.setattr(usages, 'lock', lock)
    monkeypatch.setattr(usages, 'lock_values', lock_values)
    monkeypatch.setattr(usages, 'add_reserved', add_reserved)
    monkeypatch.setattr(usages, 'apply_reserved', apply_reserved)
    monkeypatch.setattr(usages, 'refresh', refresh)
    # The statements PostgreSQL runs as one are the same fakes' work; the
    # functional tests run both shapes.
    monkeypatch.setattr(usages, 'joins_statements', lambda session: False)
    monkeypatch.setattr(quota_limits, 'read_limits',
                        lambda session, project_id, user_id, quota_class:
                        LIMITS[0])
    monkeypatch.setattr(reservations, '_write_rows',
                        lambda session, rows: session.added.extend(
                            types.SimpleNamespace(**r) for r in rows))
    return state


def _reserve(session, per_unit=PER_VM, min_count=1, max_count=1,
             limits=(UNLIMITED, UNLIMITED)):
    # The limits are read inside the transaction: the store's fake of
    # read_limits answers these.
    LIMITS[:] = [limits]
    return reservations.reserve_in_session(
        session, 'p1', 'u1', per_unit, min_count, max_count, RESOURCES)


def test_reserve_records_each_resource_for_the_count(store, conf):
    conf.config(group='quota', reservation_expire=600)
    session = FakeSession()
    held = _reserve(session, min_count=1, max_count=3)
    assert held.count == 3
    assert held.deltas == {'cores': 6, 'instances': 3, 'ram': 3072}
    assert sorted((r.resource, r.delta, r.user_id) for r in session.added) \
        == [('cores', 6, 'u1'), ('instances', 3, 'u1'), ('ram', 3072, 'u1')]
    assert {r.uuid for r in session.added} == {held.uuid}
    assert {r.expire for r in session.added} == {
        NOW + datetime.timedelta(seconds=600)}
    for user in ('', 'u1'):
        assert store.rows[(user, 'cores')].reserved == 6
    assert store.refreshes == 0


def test_reserve_shrinks_to_the_project_limit(store):
    store.rows[('', 'instances')].in_use = 8
    limits = (dict(UNLIMITED, instances=10), dict(UNLIMITED, instances=10))
    held = _reserve(FakeSession(), min_count=1, max_count=5, limits=limits)
    assert held.count == 2


def test_reserve_recounts_before_refusing(store):
    """The record says full; the count says two servers fit."""
    store.rows[('', 'instances')].in_use = 10
    store.counted = {('', 'instances'): 8, ('u1', 'instances'): 8}
    limits = (dict(UNLIMITED, instances=10), dict(UNLIMITED, instances=10))
    held = _reserve(FakeSession(), min_count=2, max_count=2, limits=limits)
    assert held.count == 2 and store.refreshes == 1


def test_reserve_refuses_on_counted_usage(store):
    store.rows[('', 'instances')].in_use = 10
    store.counted = {('', 'instances'): 10}
    limits = (dict(UNLIMITED, instances=10), dict(UNLIMITED, instances=10))
    session = FakeSession()
    with pytest.raises(exception.OverQuota):
        _reserve(session, limits=limits)
    assert session.added == [] and store.refreshes == 1
    assert store.rows[('', 'instances')].reserved == 0


def test_stale_usage_is_recounted_once_before_deciding(store, conf, clock):
    conf.config(group='quota', max_age=60)
    clock.now = NOW + datetime.timedelta(days=1)
    store.counted = {('', 'instances'): 3}
    limits = (dict(UNLIMITED, instances=3), UNLIMITED)
    with pytest.raises(exception.OverQuota):
        _reserve(FakeSession(), limits=limits)
    assert store.refreshes == 1


def test_until_refresh_ticks_every_locked_row(store):
    for r in store.rows.values():
        r.until_refresh = 2
    _reserve(FakeSession())
    assert {r.until_refresh for r in store.rows.values()} == {1}
    assert store.refreshes == 0
    _reserve(FakeSession())
    assert store.refreshes == 1


@pytest.fixture
def taken(monkeypatch, store):
    """``_take`` answers the reservation rows given here, once."""
    state = types.SimpleNamespace(rows=[], known=[])

    def take(session, uuid, known=None, apply=None):
        assert apply is None
        state.known.append(known)
        found, state.rows = state.rows, []
        return 'p1', found
    monkeypatch.setattr(reservations, '_take', take)
    return state


def test_commit_moves_reserved_to_in_use_once(store, taken):
    for user in ('', 'u1'):
        store.rows[(user, 'instances')].reserved = 2
    taken.rows = [('u1', 'instances', 2)]
    assert reservations._apply(FakeSession(), 'r1', commit=True)
    assert reservations._apply(FakeSession(), 'r1', commit=True) == []
    for user in ('', 'u1'):
        assert (store.rows[(user, 'instances')].in_use,
                store.rows[(user, 'instances')].reserved) == (2, 0)


def test_rollback_only_gives_back_the_reservation(store, taken):
    store.rows[('', 'cores')].reserved = 4
    store.rows[('u1', 'cores')].reserved = 4
    taken.rows = [('u1', 'cores', 4)]
    reservations._apply(FakeSession(), 'r1', commit=False)
    assert (store.rows[('', 'cores')].in_use,
            store.rows[('', 'cores')].reserved) == (0, 0)


def test_commit_keeps_unknown_usage_unknown(store, taken):
    store.rows[('', 'ram')].in_use = -1
    store.rows[('', 'ram')].reserved = 512
    taken.rows = [('u1', 'ram', 512)]
    reservations._apply(FakeSession(), 'r1', commit=True)
    assert store.rows[('', 'ram')].in_use == -1


def test_commit_in_session_refuses_a_vanished_reservation(store, taken):
    held = reservations.Reservation('r1', 'p1', 'u1', 1,
                                    {'instances': 1, 'cores': 2})
    with pytest.raises(exception.ReservationExpired):
        reservations.commit_in_session(FakeSession(), held)


def test_commit_in_session_takes_the_rows_it_was_granted(store, taken):
    held = reservations.Reservation('r1', 'p1', 'u1', 1,
                                    {'instances': 1, 'cores': 2})
    taken.rows = [('u1', 'cores', 2), ('u1', 'instances', 1)]
    reservations.commit_in_session(FakeSession(), held)
    # What reserve granted is known: the rows are not read back.
    assert taken.known == [('p1', [('u1', 'cores', 2),
                                   ('u1', 'instances', 1)])]


def test_expiry_rolls_back_what_is_past_due(monkeypatch, clock):
    asked = []
    monkeypatch.setattr(reservations, '_expired_uuids',
                        lambda ctxt, now, limit: asked.append(now)
                        or ['a', 'b', 'c'])
    monkeypatch.setattr(reservations, 'rollback',
                        lambda ctxt, uuid: uuid != 'b')
    clock.now = NOW + datetime.timedelta(hours=30)
    # 'b' was committed meanwhile: not counted.
    assert reservations.expire_reservations(None) == 2
    assert asked == [NOW + datetime.timedelta(hours=30)]


def test_release_takes_usage_off_user_and_project(store):
    for user in ('', 'u1'):
        store.rows[(user, 'instances')].in_use = 3
        store.rows[(user, 'cores')].in_use = 6
    reservations.release_in_session(FakeSession(), 'p1', 'u1',
                                    {'instances': 1, 'cores': 2, 'ram': 0})
    for user in ('', 'u1'):
        assert store.rows[(user, 'instances')].in_use == 2
        assert store.rows[(user, 'cores')].in_use == 4
        assert store.rows[(user, 'ram')].in_use == 0


def test_release_below_zero_marks_usage_unknown(store):
    store.rows[('u1', 'instances')].in_use = 0
    store.rows[('', 'instances')].in_use = 4
    reservations.release_in_session(FakeSession(), 'p1', 'u1',
                                    {'instances': 1})
    assert store.rows[('u1', 'instances')].in_use == -1
    assert store.rows[('', 'instances')].in_use == 3


def test_only_reservable_resources_are_reserved():
    with pytest.raises(exception.QuotaResourceUnknown):
        reservations.reserve(None, 'p1', 'u1', {'metadata_items': 1})
    with pytest.raises(exception.InvalidInput):
        reservations.reserve(None, 'p1', 'u1', {'instances': -1})


def test_nothing_to_reserve_touches_no_record():
    held = reservations.reserve(None, 'p1', 'u1', {'server_groups': 0},
                                1, 2)
    assert (held.count, held.deltas) == (2, {})
