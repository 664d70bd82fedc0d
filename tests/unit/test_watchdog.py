"""The systemd watchdog pings only while the service is healthy."""

import socket
import time
from unittest import mock

import pytest

from nova_lite import service
from nova_lite import watchdog


@pytest.fixture
def notify(tmp_path):
    path = str(tmp_path / 'notify')
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(0.2)
    yield path, sock
    sock.close()


def _received(sock):
    messages = []
    while True:
        try:
            messages.append(sock.recv(64))
        except socket.timeout:
            return messages


def test_no_watchdog_unless_systemd_asks(notify):
    path, _sock = notify
    assert watchdog.Watchdog.from_environment(path, object(), {}) is None
    assert watchdog.Watchdog.from_environment(
        None, object(), {'WATCHDOG_USEC': '1000000'}) is None
    dog = watchdog.Watchdog.from_environment(
        path, object(), {'WATCHDOG_USEC': '30000000'})
    assert dog.interval == 15.0      # half of WatchdogSec


def test_pings_only_while_healthy(notify):
    path, sock = notify
    state = {'healthy': True}
    dog = watchdog.Watchdog(path, 60, lambda: state['healthy'])
    assert dog.ping() is True
    state['healthy'] = False
    assert dog.ping() is False
    state['healthy'] = True
    assert dog.ping() is True
    assert _received(sock) == [b'WATCHDOG=1', b'WATCHDOG=1']


def test_a_failing_health_check_is_unhealthy(notify):
    path, sock = notify
    dog = watchdog.Watchdog(path, 60, mock.Mock(side_effect=OSError('db')))
    assert dog.ping() is False
    assert _received(sock) == []


def test_the_thread_pings_every_interval_and_stops(notify):
    path, sock = notify
    dog = watchdog.Watchdog(path, 0.05, lambda: True)
    dog.start()
    time.sleep(0.3)
    dog.stop()
    count = len(_received(sock))
    assert count >= 3
    assert _received(sock) == []     # nothing after stop


def test_rpc_service_health_follows_its_heartbeat(conf, monkeypatch):
    conf.config(service_down_time=60)
    svc = service.Service('nova-lite-scheduler', host='h1')
    assert svc.is_healthy() is False            # not consuming yet
    svc.rpcserver = mock.Mock()
    clock = mock.Mock(return_value=1000.0)
    monkeypatch.setattr(service.time, 'monotonic', clock)
    svc.service_ref = mock.Mock()
    svc._heartbeat()
    assert svc.is_healthy() is True
    svc.service_ref.heartbeat.side_effect = OSError('database gone')
    clock.return_value = 1030.0
    svc._heartbeat()
    assert svc.is_healthy() is True             # others still see it up
    clock.return_value = 1061.0
    svc._heartbeat()
    assert svc.is_healthy() is False            # as down as they see it
