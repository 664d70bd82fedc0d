"""systemd's watchdog: ``WATCHDOG=1`` only while the daemon is healthy.

With ``WatchdogSec=`` in a unit, systemd sets ``WATCHDOG_USEC`` and
restarts the service if no ``WATCHDOG=1`` arrives within that time. A
daemon that merely runs would keep pinging while it can do no work; here
each ping first asks the service whether it is healthy (``is_healthy()``:
for an RPC service, its server consumes and its last heartbeat, which
writes the database directly or through a conductor over the bus,
succeeded recently; for the API, its server accepts connections), and
sends nothing while it is not, so systemd restarts a daemon that stayed
unhealthy for the whole ``WatchdogSec``.

    dog = watchdog.Watchdog.from_environment(notify_socket, service)
    if dog: dog.start()   # ... dog.stop() at shutdown
"""

import os
import socket
import threading

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


def send(notify_socket, message):
    """Send ``message`` (bytes) to systemd's notification socket; False if
    it could not be sent."""
    address = notify_socket
    if address.startswith('@'):
        address = '\0' + address[1:]      # abstract namespace
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        sock.connect(address)
        sock.sendall(message)
        return True
    except OSError as exc:
        LOG.debug('systemd notification failed: %s', exc)
        return False
    finally:
        sock.close()


class Watchdog:
    """Pings every ``interval`` seconds while ``healthy()`` says so."""

    def __init__(self, notify_socket, interval, healthy):
        self.notify_socket = notify_socket
        self.interval = interval
        self.healthy = healthy
        self._stop = threading.Event()
        self._thread = None
        self._was_healthy = True

    @classmethod
    def from_environment(cls, notify_socket, service, environ=None):
        """A Watchdog for ``service`` if systemd asked for one (half of
        ``WATCHDOG_USEC`` between pings, as sd_watchdog_enabled advises),
        else None."""
        usec = (os.environ if environ is None else environ).get(
            'WATCHDOG_USEC')
        if not notify_socket or not usec:
            return None
        try:
            interval = int(usec) / 2e6
        except ValueError:
            LOG.warning('Ignoring WATCHDOG_USEC=%r: not a number', usec)
            return None
        healthy = getattr(service, 'is_healthy', lambda: True)
        return cls(notify_socket, interval, healthy)

    def ping(self):
        """Send WATCHDOG=1 if healthy; return whether it was sent."""
        try:
            ok = bool(self.healthy())
        except Exception:
            LOG.exception('Health check failed')
            ok = False
        if ok != self._was_healthy:
            log = LOG.info if ok else LOG.warning
            log('Service is %s: systemd watchdog pings %s', 'healthy again'
                if ok else 'unhealthy', 'resume' if ok else 'stop')
            self._was_healthy = ok
        return ok and send(self.notify_socket, b'WATCHDOG=1')

    def _run(self):
        while not self._stop.wait(self.interval):
            self.ping()

    def start(self):
        self.ping()
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name='systemd-watchdog')
        self._thread.start()

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
