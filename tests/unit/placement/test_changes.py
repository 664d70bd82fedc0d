"""The change-notice hook without a database: what it sends, and that
it never fails a write."""

import queue
import threading
import time
from unittest import mock

import pytest

from nova_lite.placement import changes


def test_the_default_publisher_sends_from_its_thread_and_coalesces(
        monkeypatch):
    sent = []
    first_taken = threading.Event()
    release = threading.Event()

    def update_provider_states(ctxt, providers, aggregate_uuids,
                               generations, instance_states):
        sent.append((set(providers), set(aggregate_uuids),
                     threading.current_thread().name, generations))
        first_taken.set()
        release.wait(5)

    client = mock.Mock(update_provider_states=update_provider_states)
    monkeypatch.setattr(changes.rpc, 'TRANSPORT', object())
    monkeypatch.setattr(changes, '_scheduler_api', lambda transport: client)
    monkeypatch.setattr(changes, '_queue', None)
    changes.publish({'p1'}, generations={'p1': 3})
    assert first_taken.wait(5)
    # Sent while the first is still going: they leave together, the
    # known generations merged to the newer, a known one with an unknown
    # to unknown.
    changes.publish({'p2', 'p4'}, {'a1'}, {'p2': 5, 'p4': 1})
    changes.publish({'p3', 'p4'}, generations={'p2': 7, 'p3': 2})
    changes.publish({'p2'}, generations={'p2': 6})
    release.set()
    for _ in range(100):
        if len(sent) == 2:
            break
        threading.Event().wait(0.05)
    assert [s[:2] for s in sent] == [({'p1'}, set()),
                                     ({'p2', 'p3', 'p4'}, {'a1'})]
    assert {s[2] for s in sent} == {'scheduler-notices'}
    assert [s[3] for s in sent] == [{'p1': 3}, {'p2': 6, 'p3': 2}]


def test_nothing_is_sent_without_a_transport(monkeypatch):
    monkeypatch.setattr(changes.rpc, 'TRANSPORT', None)
    monkeypatch.setattr(changes, '_queue', None)
    changes.publish({'p1'})
    assert changes._queue is None


def test_a_failing_publisher_never_fails_the_write():
    def broken(providers, aggregates, generations, instances):
        raise RuntimeError('broker down')

    previous = changes.set_publisher(broken)
    try:
        changes.publish({'p1'})
    finally:
        changes.set_publisher(previous)


def test_an_empty_notice_is_not_published():
    publisher = mock.Mock()
    previous = changes.set_publisher(publisher)
    try:
        changes.publish(set(), set())
    finally:
        changes.set_publisher(previous)
    publisher.assert_not_called()


class Session:
    def __init__(self):
        self.info = {}


def test_a_transaction_notes_generations_merged_unknown_winning():
    session = Session()
    changes.note(session, ['p1', 'p2', 'p3'],
                 generations={'p1': 4, 'p2': 2, 'p3': 1})
    changes.note(session, ['p1'], generations={'p1': 5})
    changes.note(session, ['p2'])  # touch(): the generation is unknown
    changes.note(session, ['p3'], generations={'p3': 0})
    changes.note(session, aggregates=['a1'])
    providers, aggregates = session.info[changes._KEY]
    assert providers == {'p1': 5, 'p2': None, 'p3': 1}
    assert aggregates == {'a1'}
    assert changes.known(providers) == {'p1': 5, 'p3': 1}


def test_the_publisher_gets_the_known_generations():
    publisher = mock.Mock()
    previous = changes.set_publisher(publisher)
    try:
        changes.publish({'p1', 'p2'}, generations={'p1': 3, 'x': 1})
    finally:
        changes.set_publisher(previous)
    publisher.assert_called_once_with({'p1', 'p2'}, set(), {'p1': 3}, {})


def test_a_transaction_notes_instances_the_latest_winning():
    session = Session()
    changes.note_instance(session, 'n1', 'i1', 'building', 'spawning', 5.0)
    changes.note_instance(session, 'n1', 'i1', 'active', None, 6.0)
    changes.note_instance(session, 'n1', 'i2', 'active', None, 4.0)
    changes.note_instance(session, 'n1', 'i2', 'building', None, 3.0)
    changes.note_instance(session, None, 'i3', 'active', None, 7.0)
    assert session.info[changes._INSTANCES_KEY] == {
        'n1': {'i1': ('active', None, 6.0), 'i2': ('active', None, 4.0)}}
    assert changes._KEY not in session.info


def test_instance_notes_alone_are_published_and_coalesced(monkeypatch):
    sent = []
    first_taken = threading.Event()
    release = threading.Event()

    def update_provider_states(ctxt, providers, aggregate_uuids,
                               generations, instance_states):
        sent.append((set(providers), instance_states))
        first_taken.set()
        release.wait(5)

    client = mock.Mock(update_provider_states=update_provider_states)
    monkeypatch.setattr(changes.rpc, 'TRANSPORT', object())
    monkeypatch.setattr(changes, '_scheduler_api', lambda transport: client)
    monkeypatch.setattr(changes, '_queue', None)
    changes.publish(set(), instances={'n1': {'i1': ('building', None, 1)}})
    assert first_taken.wait(5)
    changes.publish({'p1'}, instances={'n1': {'i1': ('active', None, 3)}})
    changes.publish(set(), instances={'n1': {'i1': ('error', None, 2)},
                                      'n2': {'i2': ('active', None, 2)},
                                      'n3': {}})
    release.set()
    for _ in range(100):
        if len(sent) == 2:
            break
        threading.Event().wait(0.05)
    assert sent == [
        (set(), {'n1': {'i1': ('building', None, 1)}}),
        ({'p1'}, {'n1': {'i1': ('active', None, 3)},
                  'n2': {'i2': ('active', None, 2)}})]


def _notice(notes, aggregates=(), prompt=False):
    return dict(notes), set(aggregates), {}, prompt


def _batched(pending, put_later=None):
    """``changes._batch`` of ``pending``, ``put_later`` put 20 ms in;
    returns (its result, the seconds it took)."""
    if put_later is not None:
        threading.Timer(0.02, pending.put, [put_later]).start()
    start = time.monotonic()
    return changes._batch(pending), time.monotonic() - start


def test_a_claims_notice_waits_for_the_claims_after_it(conf):
    conf.config(group='scheduler', change_notice_delay=0.3)
    pending = queue.SimpleQueue()
    pending.put(_notice({'p1': 3}))
    (notes, aggregates, _, prompt), took = _batched(
        pending, _notice({'p2': 1, 'p1': 4}))
    assert notes == {'p1': 4, 'p2': 1} and not prompt
    assert took >= 0.29


def test_a_prompt_notice_ends_the_wait_and_takes_the_waiting_along(conf):
    conf.config(group='scheduler', change_notice_delay=5)
    pending = queue.SimpleQueue()
    pending.put(_notice({'p1': 3}))
    (notes, aggregates, _, prompt), took = _batched(
        pending, _notice({'p2': None}, ['a1'], prompt=True))
    assert (notes, aggregates, prompt) == ({'p1': 3, 'p2': None}, {'a1'},
                                           True)
    assert took < 2
    # First in the queue, it does not wait at all.
    pending.put(_notice({'p3': None}, prompt=True))
    (notes, _, _, prompt), took = _batched(pending)
    assert notes == {'p3': None} and prompt and took < 2


@pytest.mark.parametrize('claimed, prompt', [(True, False), (False, True)])
def test_only_a_claim_s_notes_may_wait(monkeypatch, claimed, prompt):
    published = []
    monkeypatch.setattr(changes, 'publish',
                        lambda *args, **kwargs: published.append(kwargs))
    session = Session()
    changes.note(session, ['p1'], generations={'p1': 2}, claimed=claimed)
    changes.note_instance(session, 'n1', 'i1', 'active', None, 6.0)
    changes._after_commit(session)
    # Instance states alone wait too.
    changes.note_instance(session, 'n1', 'i1', 'active', None, 7.0)
    changes._after_commit(session)
    assert published == [{'prompt': prompt}, {'prompt': False}]
