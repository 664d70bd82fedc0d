"""The API's listening socket: made once, or taken from systemd."""

import os
import socket

import pytest

from nova_lite.wsgi import listener


def _at_fd3(sock):
    """Put ``sock`` at file descriptor 3, as systemd does; return a
    function that restores what was there."""
    try:
        saved = os.dup(3)
    except OSError:
        saved = None
    os.dup2(sock.fileno(), 3)

    def restore():
        if saved is None:
            os.close(3)
        else:
            os.dup2(saved, 3)
            os.close(saved)
    return restore


@pytest.fixture
def fd3():
    """A listening TCP socket at file descriptor 3; its address."""
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    sock.listen(1)
    restore = _at_fd3(sock)
    yield sock.getsockname()
    sock.close()
    restore()


def test_no_activation_without_variables():
    environ = {}
    assert listener.activated_socket(environ) is None


def test_activation_takes_fd3_and_clears_the_environment(fd3):
    environ = {'LISTEN_PID': str(os.getpid()), 'LISTEN_FDS': '1',
               'LISTEN_FDNAMES': 'api'}
    sock = listener.activated_socket(environ)
    try:
        assert sock.fileno() == 3
        assert sock.getsockname() == fd3
    finally:
        sock.detach()
    assert environ == {}


@pytest.mark.parametrize('environ', [
    {'LISTEN_PID': '1', 'LISTEN_FDS': '1'},
    {'LISTEN_PID': 'me', 'LISTEN_FDS': '1'},
    {'LISTEN_FDS': '1'},
])
def test_activation_for_another_process_is_ignored(environ):
    assert listener.activated_socket(environ) is None
    assert 'LISTEN_FDS' not in environ


def test_activation_without_sockets_is_ignored():
    environ = {'LISTEN_PID': str(os.getpid()), 'LISTEN_FDS': '0'}
    assert listener.activated_socket(environ) is None


def test_datagram_socket_is_refused():
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    restore = _at_fd3(sock)
    try:
        with pytest.raises(ValueError, match='ListenStream'):
            listener.activated_socket({'LISTEN_PID': str(os.getpid()),
                                       'LISTEN_FDS': '1'})
    finally:
        sock.close()
        restore()


def test_listen_binds_and_listens():
    sock = listener.listen('127.0.0.1', 0, 8)
    try:
        client = socket.create_connection(sock.getsockname(), timeout=5)
        client.close()
    finally:
        sock.close()


def test_listen_refuses_a_port_in_use():
    first = listener.listen('127.0.0.1', 0, 8)
    try:
        with pytest.raises(OSError):
            listener.listen('127.0.0.1', first.getsockname()[1], 8)
    finally:
        first.close()
