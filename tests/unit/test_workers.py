"""READY once every worker consumes, and only once."""

import os

import pytest

from nova_lite import workers


def test_the_last_worker_to_start_completes_the_count():
    ready = workers.ReadyCount(2)
    assert ready.started() is False
    assert ready.started() is True
    # A worker restarted later does not say READY again.
    assert ready.started() is False


@pytest.mark.skipif(not hasattr(os, 'fork'), reason='needs fork')
def test_the_count_is_shared_across_fork():
    ready = workers.ReadyCount(2)
    pid = os.fork()
    if pid == 0:
        os._exit(0 if ready.started() is False else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert ready.started() is True
