"""READY once every worker consumes, and only once; a worker knows
whether the whole service stops."""

import os
from unittest import mock

import cotyledon
from oslo_service.backend._threading import service as threading_service
import pytest

from nova_lite import service
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


def test_the_launcher_tells_its_workers_the_service_stops():
    """The hook is registered on the launcher oslo.service really makes
    (its private cotyledon manager): if that moves, a stopping API would
    again leave its socket listening until it exits."""
    assert hasattr(cotyledon.ServiceManager, 'register_hooks')
    launcher = threading_service.ServiceLauncher(mock.Mock(
        graceful_shutdown_timeout=1))
    with mock.patch.object(threading_service, '_get_service_manager',
                           return_value=(mock.Mock(), mock.Mock())) as get:
        launcher.launch_service(service._Notifying(mock.Mock(), None))
    manager = get.return_value[1]
    saved = workers._service_stopping
    try:
        workers.watch_service_stop(launcher)
        assert workers.service_stopping() is False   # one worker alone
        hook = manager.register_hooks.call_args.kwargs['on_terminate']
        hook()   # the master stops the service
        assert workers.service_stopping() is True
    finally:
        workers._service_stopping = saved


def test_without_a_launcher_every_stop_is_the_service_s():
    saved = workers._service_stopping
    try:
        workers._service_stopping = None
        assert workers.service_stopping() is True
    finally:
        workers._service_stopping = saved


@pytest.mark.parametrize('sock, outlives, stopping, ends', [
    (None, False, False, True),          # cheroot's own socket
    (mock.Mock(), True, True, False),    # systemd's socket
    (mock.Mock(), False, False, False),  # one worker stops alone
    (mock.Mock(), False, True, True),    # the service stops
])
def test_when_the_api_ends_the_listening(sock, outlives, stopping, ends):
    if sock is not None:
        sock.getsockname.return_value = ('127.0.0.1', 8774)
    api = service.WSGIService(sock=sock, sock_outlives=outlives)
    with mock.patch.object(workers, 'service_stopping',
                           return_value=stopping):
        assert api._ends_listening() is ends
