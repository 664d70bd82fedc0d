"""Several worker processes of one service: when are they all ready?

``nova_lite.service.launch`` forks ``count`` workers (oslo.service's
launcher, which also passes SIGTERM on to each); a ``ReadyCount`` made
before the fork is shared by them, so the service tells systemd READY=1
only when the last of them consumes. A worker the launcher restarts later
counts again, past ``count``: READY is not sent twice.

``watch_service_stop`` lets a worker tell the stop of the whole service
from its own alone (``service_stopping``): the API's last worker ends the
listening only in the first case (nova_lite/wsgi/server.py).
"""

import multiprocessing

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


class ReadyCount:
    """A count of started workers shared across fork."""

    def __init__(self, count):
        self.count = count
        self._started = multiprocessing.Value('i', 0)

    def started(self):
        """Count this worker as started; True for the one that makes the
        count complete."""
        with self._started.get_lock():
            self._started.value += 1
            return self._started.value == self.count


# Set in the launcher's master process once it stops the whole service
# (SIGTERM to the service), before it passes SIGTERM on to its workers;
# shared with them across fork. None: not run under a launcher.
_service_stopping = None


def watch_service_stop(launcher):
    """Call in the master process, after ``oslo_service.service.launch``
    and before the workers fork: ``service_stopping`` then tells a worker
    whether the whole service stops, or only this worker (a SIGTERM sent
    to it alone, after which the launcher forks a replacement)."""
    global _service_stopping
    _service_stopping = multiprocessing.Value('b', 0, lock=False)
    flag = _service_stopping
    try:
        # oslo.service keeps its cotyledon ServiceManager private; its
        # terminate hooks run in the master before the workers get
        # SIGTERM. tests/unit/test_workers.py fails if this moves.
        manager = launcher._manager
        manager.register_hooks(on_terminate=lambda: _set(flag))
    except AttributeError:
        LOG.warning('Cannot watch the launcher stop: a stopping worker '
                    'will treat every stop as its own only')


def _set(flag):
    flag.value = 1


def service_stopping():
    """True when the whole service stops (or no launcher runs it), False
    when only this worker does."""
    return _service_stopping is None or bool(_service_stopping.value)
