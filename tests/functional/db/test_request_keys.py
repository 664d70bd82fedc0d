"""A create sent again under its request key makes no second set of
servers (conductor/tasks/request_keys.py), on every backend: after a
first attempt committed, while it is still writing, and when the first
attempt's servers are what uses the quota up."""

import concurrent.futures
import datetime
import threading

from oslo_utils import uuidutils
import pytest
import sqlalchemy as sa

from nova_lite.conductor.tasks import provision
from nova_lite.conductor.tasks import request_keys
from nova_lite import context as nl_context
from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import exception
from nova_lite import objects
from nova_lite.quota import limits
from nova_lite.quota import usages


@pytest.fixture
def ctxt(database):
    return nl_context.get_admin_context()


@pytest.fixture
def flavor(ctxt):
    flavor = objects.Flavor(ctxt, flavorid='1', name='f1', memory_mb=512,
                            vcpus=1, root_gb=1)
    flavor.create()
    return flavor


def _attempt(ctxt, flavor, key, count=1, reservation_id='r-first'):
    """One attempt of a create request: a fresh template, as the API
    sends each attempt."""
    template = objects.Instance(
        ctxt, project_id='p1', user_id='u1', display_name='vm',
        flavor=flavor, image_ref='img', vm_state='building',
        task_state='scheduling', metadata={},
        reservation_id=reservation_id)
    spec = objects.RequestSpec(
        project_id='p1', user_id='u1', num_instances=count, flavor=flavor,
        image=objects.ImageMeta.from_image({
            'id': uuidutils.generate_uuid(), 'name': 'img',
            'properties': {}}))
    return provision.provision(ctxt, template, spec, 1, count, key)


def _in_use(ctxt):
    @db_api.reader
    def read(context):
        return context.session.scalar(
            sa.select(usages.Usage.in_use).filter_by(
                project_id='p1', user_id=usages.PROJECT,
                resource='instances'))
    return read(ctxt)


def _live(ctxt):
    return len(objects.InstanceList.get_by_filters(ctxt,
                                                   {'project_id': 'p1'}))


def test_a_second_attempt_returns_the_first_ones_servers(ctxt, flavor):
    first, owned = _attempt(ctxt, flavor, 'req-1', count=2)
    assert owned is not provision.EARLIER
    again, owned = _attempt(ctxt, flavor, 'req-1', count=2,
                            reservation_id='r-second')
    assert owned is provision.EARLIER
    assert [i.uuid for i in again] == [i.uuid for i in first]
    assert _live(ctxt) == 2
    assert _in_use(ctxt) == 2
    assert not _reservations(ctxt)
    # Another request is another set.
    other, _ = _attempt(ctxt, flavor, 'req-2', reservation_id='r-other')
    assert other[0].uuid not in {i.uuid for i in first}
    assert _live(ctxt) == 3


def test_a_first_attempt_reads_no_key(ctxt, flavor):
    """The records' transaction meets an earlier attempt anyway: a first
    attempt (nearly every one) spends no read on looking for one."""
    statements = []

    def record(conn, cursor, statement, *args):
        statements.append(statement)
    engine = db_api.get_engine()
    sa.event.listen(engine, 'before_cursor_execute', record)
    try:
        _attempt(ctxt, flavor, 'req-1')
    finally:
        sa.event.remove(engine, 'before_cursor_execute', record)
    touching = [s for s in statements if 'provision_requests' in s]
    assert len(touching) == 1 and touching[0].lstrip().startswith(
        'INSERT'), touching


def test_without_a_key_every_call_creates(ctxt, flavor):
    _attempt(ctxt, flavor, None)
    _attempt(ctxt, flavor, None)
    assert _live(ctxt) == 2


def test_attempts_at_once_make_one_set(database, ctxt, flavor,
                                       monkeypatch):
    """Both attempts reserve; the second waits on the key inside its
    records' transaction until the first commits, then gives its
    reservation back and answers with the first one's servers."""
    if database.backend == 'sqlite':
        pytest.skip('SQLite serialises writers; the race needs a server')
    both_reserved = threading.Barrier(2, timeout=30)
    reserve = provision.reserve_quota

    def reserve_then_meet(*args, **kwargs):
        reservation = reserve(*args, **kwargs)
        both_reserved.wait()
        return reservation
    monkeypatch.setattr(provision, 'reserve_quota', reserve_then_meet)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        results = list(pool.map(
            lambda rid: _attempt(nl_context.get_admin_context(), flavor,
                                 'req-1', reservation_id=rid),
            ['r-a', 'r-b']))
    owners = sorted(owned is provision.EARLIER for _, owned in results)
    assert owners == [False, True]
    assert results[0][0][0].uuid == results[1][0][0].uuid
    assert _live(ctxt) == 1
    assert _in_use(ctxt) == 1
    assert not _reservations(ctxt)


def test_over_quota_because_of_the_first_attempt_answers_with_it(
        ctxt, flavor):
    limits.set_limits(ctxt, {'instances': 1}, project_id='p1')
    first, _ = _attempt(ctxt, flavor, 'req-1')
    again, owned = _attempt(ctxt, flavor, 'req-1',
                            reservation_id='r-second')
    assert owned is provision.EARLIER
    assert [i.uuid for i in again] == [first[0].uuid]
    # A different request is over quota, as before.
    with pytest.raises(exception.OverQuota):
        _attempt(ctxt, flavor, 'req-2', reservation_id='r-other')
    assert _live(ctxt) == 1


def test_the_quota_probe_waits_for_an_attempt_still_writing(database, ctxt,
                                                            flavor):
    """The first attempt holds its key uncommitted; a probe blocks until
    it commits, then finds its servers."""
    if database.backend == 'sqlite':
        pytest.skip('SQLite serialises writers; the race needs a server')
    started = threading.Event()
    release = threading.Event()

    @db_api.writer
    def first_attempt(context):
        request_keys.claim_in_session(context.session, 'req-1', 'p1',
                                      'r-first')
        started.set()
        release.wait(30)

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        holder = pool.submit(first_attempt, nl_context.get_admin_context())
        assert started.wait(30)
        probe = threading.Thread(
            target=lambda: found.append(
                request_keys.earlier_or_none_after_waiting(
                    nl_context.get_admin_context(), 'req-1', 'p1')))
        found = []
        probe.start()
        probe.join(1)
        assert probe.is_alive()  # waiting on the uncommitted key
        release.set()
        holder.result(30)
        probe.join(30)
    assert [list(f) for f in found] == [[]]  # committed, no servers here
    # A probe that can claim the key claims nothing.
    assert request_keys.earlier_or_none_after_waiting(
        ctxt, 'req-2', 'p1') is None
    assert _keys(ctxt) == ['req-1']


def test_old_keys_are_purged(ctxt, flavor):
    _attempt(ctxt, flavor, 'req-1')
    assert request_keys.purge(ctxt) == 0
    later = datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None) + datetime.timedelta(seconds=request_keys.RETENTION + 1)
    assert request_keys.purge(ctxt, now=later) == 1
    assert _keys(ctxt) == []


@db_api.reader
def _keys(context):
    return list(context.session.scalars(
        sa.select(models.ProvisionRequest.request_key)))


@db_api.reader
def _reservations(context):
    return list(context.session.scalars(sa.select(models.Reservation.uuid)))
