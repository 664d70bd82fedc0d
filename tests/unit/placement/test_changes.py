"""The change-notice hook without a database: what it sends, and that
it never fails a write."""

import threading
from unittest import mock

from nova_lite.placement import changes


def test_the_default_publisher_sends_from_its_thread_and_coalesces(
        monkeypatch):
    sent = []
    first_taken = threading.Event()
    release = threading.Event()

    def update_provider_states(ctxt, providers, aggregate_uuids):
        sent.append((set(providers), set(aggregate_uuids),
                     threading.current_thread().name))
        first_taken.set()
        release.wait(5)

    client = mock.Mock(update_provider_states=update_provider_states)
    monkeypatch.setattr(changes.rpc, 'TRANSPORT', object())
    monkeypatch.setattr(changes, '_scheduler_api', lambda transport: client)
    monkeypatch.setattr(changes, '_queue', None)
    changes.publish({'p1'})
    assert first_taken.wait(5)
    # Sent while the first is still going: they leave together.
    changes.publish({'p2'}, {'a1'})
    changes.publish({'p3'})
    release.set()
    for _ in range(100):
        if len(sent) == 2:
            break
        threading.Event().wait(0.05)
    assert [s[:2] for s in sent] == [({'p1'}, set()),
                                     ({'p2', 'p3'}, {'a1'})]
    assert {s[2] for s in sent} == {'scheduler-notices'}


def test_nothing_is_sent_without_a_transport(monkeypatch):
    monkeypatch.setattr(changes.rpc, 'TRANSPORT', None)
    monkeypatch.setattr(changes, '_queue', None)
    changes.publish({'p1'})
    assert changes._queue is None


def test_a_failing_publisher_never_fails_the_write():
    def broken(providers, aggregates):
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
