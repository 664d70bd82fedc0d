"""Several worker processes of one service: when are they all ready?

``nova_lite.service.launch`` forks ``count`` workers (oslo.service's
launcher, which also passes SIGTERM on to each); a ``ReadyCount`` made
before the fork is shared by them, so the service tells systemd READY=1
only when the last of them consumes. A worker the launcher restarts later
counts again, past ``count``: READY is not sent twice.
"""

import multiprocessing


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
