"""Admission of the builds provision_instances starts: creates wait, in
order, while the process has more than [conductor] max_pending_builds
instances pending, and no longer than build_admission_timeout."""

import threading
import time

import pytest

from nova_lite.conductor import admission


@pytest.fixture
def gate(conf):
    conf.config(max_pending_builds=2, build_admission_timeout=10,
                group='conductor')
    return admission.Admission()


def _admit_in_thread(gate, count, results, name):
    def run():
        results.append((name, gate.admit(count)))
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _wait_for(predicate, timeout=5):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, 'timed out'
        time.sleep(0.01)


def _waiting(gate):
    with gate._cond:
        return len(gate._queue)


def test_admits_at_once_below_the_limit(gate):
    assert gate.admit(1) and gate.admit(1)
    assert gate.pending == 2


def test_waits_while_full_and_goes_when_a_build_leaves(gate):
    gate.admit(2)
    results = []
    thread = _admit_in_thread(gate, 1, results, 'late')
    _wait_for(lambda: _waiting(gate) == 1)
    time.sleep(0.1)
    assert results == []          # still full
    gate.release(1)
    thread.join(5)
    assert results == [('late', True)]
    assert gate.pending == 2


def test_waiting_creates_go_in_arrival_order(gate):
    gate.admit(2)
    results = []
    threads = []
    for name in ('first', 'second', 'third'):
        threads.append(_admit_in_thread(gate, 1, results, name))
        _wait_for(lambda n=len(threads): _waiting(gate) == n)
    for _ in range(3):
        gate.release(1)
        _wait_for(lambda n=len(results) + 1: len(results) == n)
    for thread in threads:
        thread.join(5)
    assert [name for name, _ in results] == ['first', 'second', 'third']


def test_a_new_create_does_not_overtake_one_waiting(gate):
    """Room for one freed while a create of two waits: a create of one
    arriving then waits behind it rather than taking the room."""
    gate.admit(2)
    results = []
    big = _admit_in_thread(gate, 2, results, 'big')
    _wait_for(lambda: _waiting(gate) == 1)
    gate.release(1)
    small = _admit_in_thread(gate, 1, results, 'small')
    _wait_for(lambda: _waiting(gate) == 2)
    gate.release(1)
    big.join(5)
    assert results == [('big', True)]
    gate.release(2)
    small.join(5)
    assert results == [('big', True), ('small', True)]


def test_a_request_larger_than_the_limit_goes_alone(gate):
    assert gate.admit(5)          # nothing pending: admitted
    results = []
    thread = _admit_in_thread(gate, 3, results, 'next')
    _wait_for(lambda: _waiting(gate) == 1)
    gate.release(5)
    thread.join(5)
    assert results == [('next', True)]
    assert gate.pending == 3


def test_admitted_anyway_after_the_timeout(gate, conf):
    conf.config(build_admission_timeout=0.3, group='conductor')
    gate.admit(2)
    start = time.monotonic()
    assert gate.admit(1) is False
    assert 0.25 <= time.monotonic() - start < 3
    assert gate.pending == 3


def test_the_next_in_line_goes_when_the_head_times_out(gate, conf):
    """Behind a create that timed out, the next one still waits its own
    turn (the one that timed out counts as pending)."""
    conf.config(build_admission_timeout=0.3, group='conductor')
    gate.admit(2)
    assert gate.admit(1) is False
    assert gate.pending == 3
    gate.release(2)
    assert gate.admit(1) is True


def test_zero_admits_everything(gate, conf):
    conf.config(max_pending_builds=0, group='conductor')
    start = time.monotonic()
    for _ in range(50):
        assert gate.admit(1)
    assert time.monotonic() - start < 1
    assert gate.pending == 50
