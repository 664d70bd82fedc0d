"""The quota hot path's statements on every backend.

PostgreSQL joins the lock with the limits, and a commit's lock with its
DELETE and UPDATE (``nova_lite.quota.joined``); the other backends run
them separately. Both shapes must lock first, in the protocol's order,
and apply a reservation once.
"""

import collections
import concurrent.futures
import datetime
import threading
import time

import pytest
import sqlalchemy as sa

from nova_lite import context as nl_context
from nova_lite.db import api as db_api
from nova_lite.quota import joined
from nova_lite.quota import limits
from nova_lite.quota import reservations
from nova_lite.quota import resources as quota_resources
from nova_lite.quota import usages

PER_VM = {'instances': 1, 'cores': 2, 'ram': 512}


@pytest.fixture
def ctxt(database):
    return nl_context.get_admin_context()


def _server_backend(database):
    if database.backend == 'sqlite':
        pytest.skip('SQLite serialises writers; the race needs a server')


def _recorded(ctxt, user=usages.PROJECT):
    """{resource: (in_use, reserved)} as recorded."""
    @db_api.reader
    def read(context):
        return {row.resource: (row.in_use, row.reserved)
                for row in context.session.scalars(
                    sa.select(usages.Usage).filter_by(
                        project_id='p1', user_id=user))}
    return read(ctxt)


def _deadlocks():
    return usages.RETRIES['DBDeadlock']


def test_the_joined_lock_reads_what_the_separate_statements_read(
        database, ctxt):
    """On PostgreSQL the lock returns the rows and every layer of the
    limits, as the lock and the limits' own statement do."""
    if database.backend != 'postgresql':
        pytest.skip('the joined statements run on PostgreSQL')
    reservations.commit(ctxt, reservations.reserve(ctxt, 'p1', 'u1',
                                                   PER_VM))
    limits.set_limits(ctxt, {'cores': 30}, quota_class='default')
    limits.set_limits(ctxt, {'cores': 40, 'ram': 9000}, quota_class='gold')
    limits.set_limits(ctxt, {'ram': 8000, 'instances': 7}, project_id='p1')
    limits.set_limits(ctxt, {'instances': 5}, project_id='p1', user_id='u1')
    resources = quota_resources.sync_group(PER_VM)
    for quota_class, flush in ((None, True), ('default', False),
                               ('gold', True), ('gold', False)):
        with db_api.writer.using(ctxt) as session:
            values, both = joined.lock_and_limits(
                session, 'p1', 'u1', resources, quota_class, flush)
        with db_api.writer.using(ctxt) as session:
            assert values == usages.lock_values(session, 'p1', ['u1'],
                                                resources)
            assert both == limits.read_limits(session, 'p1', 'u1',
                                              quota_class)
        assert set(values) == {(u, r) for u in ('', 'u1')
                               for r in resources}
    project, user = both
    assert (project['cores'], project['ram'], project['instances']) == (
        40, 8000, 7)
    assert user['instances'] == 5


@pytest.mark.parametrize('flush', [True, False])
def test_a_reservation_skips_the_flush_of_its_own_transaction(
        database, ctxt, flush):
    """[quota] flush_reservations false: the reserving transaction's
    COMMIT does not wait for the WAL flush; the next transaction on the
    connection (a commit, a boot's records) does again."""
    if database.backend != 'postgresql':
        pytest.skip('synchronous_commit is PostgreSQL\'s')
    reservations.commit(ctxt, reservations.reserve(ctxt, 'p1', 'u1',
                                                   PER_VM))
    resources = quota_resources.sync_group(PER_VM)
    show = sa.text('SHOW synchronous_commit')
    with db_api.writer.using(ctxt) as session:
        held = reservations.reserve_in_session(
            session, 'p1', 'u1', PER_VM, 1, 1, resources, flush=flush)
        assert session.execute(show).scalar() == ('on' if flush else 'off')
    with db_api.writer.using(ctxt) as session:
        assert session.execute(show).scalar() == 'on'
        reservations.commit_in_session(session, held)
    assert _recorded(ctxt)['instances'] == (2, 0)


def test_a_commit_after_a_rollback_applies_nothing(ctxt):
    """The held Reservation's commit finds its rows gone: the usage
    UPDATE must not apply (joined: it applies only if the DELETE took
    every row)."""
    held = reservations.reserve(ctxt, 'p1', 'u1', PER_VM, 2, 2)
    assert _recorded(ctxt)['cores'] == (0, 4)
    assert reservations.rollback(ctxt, held.uuid) is True
    assert reservations.commit(ctxt, held) is False
    assert _recorded(ctxt)['cores'] == (0, 0)
    again = reservations.reserve(ctxt, 'p1', 'u1', PER_VM)
    assert reservations.commit(ctxt, again) is True
    assert reservations.commit(ctxt, again) is False
    assert _recorded(ctxt)['cores'] == (2, 0)
    assert _recorded(ctxt, 'u1')['ram'] == (512, 0)


def test_a_commit_locks_the_usage_before_it_deletes(database, ctxt):
    """A commit waiting for the project's locks has not touched the
    reservation's rows yet: the holder of the locks rolls the same
    reservation back (as the expiry does) without a deadlock, and the
    commit then finds nothing to apply."""
    _server_backend(database)
    held = reservations.reserve(ctxt, 'p1', 'u1', PER_VM)
    deadlocks = _deadlocks()
    outcome = []
    with db_api.writer.using(nl_context.get_admin_context()) as session:
        usages.lock_keys(session, 'p1', ['u1'],
                         quota_resources.sync_group(PER_VM))
        committer = threading.Thread(target=lambda: outcome.append(
            reservations.commit(nl_context.get_admin_context(), held)))
        committer.start()
        time.sleep(0.5)
        assert outcome == []
        assert reservations._apply(session, held.uuid, commit=False)
    committer.join(30)
    assert outcome == [False]
    assert _deadlocks() == deadlocks
    assert _recorded(ctxt)['instances'] == (0, 0)


def test_commits_rollbacks_and_expiry_race_exactly(database, ctxt):
    """Clients reserve and commit or roll back while the expiry rolls
    back whatever it finds: each reservation is applied once, by whoever
    took it, with no deadlock."""
    _server_backend(database)
    # Unlimited: nothing is refused, so nothing is recounted (there are
    # no servers behind these reservations: a recount would zero them).
    limits.set_limits(ctxt, {'instances': -1, 'cores': -1, 'ram': -1},
                      project_id='p1')
    for user in ('u0', 'u1', 'u2', 'u3'):
        reservations.rollback(ctxt, reservations.reserve(
            ctxt, 'p1', user, PER_VM).uuid)
    deadlocks = _deadlocks()
    committed = collections.Counter()
    stop = threading.Event()

    def client(index):
        context = nl_context.get_admin_context()
        for turn in range(15):
            held = reservations.reserve(context, 'p1', 'u%d' % (index % 4),
                                        PER_VM)
            if turn % 3 == 2:
                reservations.rollback(context, held.uuid)
            elif reservations.commit(context, held):
                committed[index % 4] += 1

    def expiry():
        context = nl_context.get_admin_context()
        later = usages.utcnow() + datetime.timedelta(days=2)
        while not stop.is_set():
            reservations.expire_reservations(context, now=later)

    with concurrent.futures.ThreadPoolExecutor(9) as pool:
        expiring = pool.submit(expiry)
        list(pool.map(client, range(8)))
        stop.set()
        expiring.result()
    total = sum(committed.values())
    assert _recorded(ctxt)['instances'] == (total, 0)
    assert _recorded(ctxt)['cores'] == (2 * total, 0)
    for user in range(4):
        assert _recorded(ctxt, 'u%d' % user)['ram'] == (
            512 * committed[user], 0)
    assert _deadlocks() == deadlocks
