"""Admission of the builds a conductor process starts itself.

``provision_instances`` (conductor RPC 1.5) answers once the records are
written and queues the build in the process's build pool. When creates
arrive faster than builds leave for their computes, that queue, and with
it every server's time to ACTIVE, grows without bound. So a create waits,
before it answers and after its records (and its quota) are written, while
this process has more than ``[conductor] max_pending_builds`` instances
accepted and not yet cast to a compute; the callers slow down to the pace
of the builds. Creates are admitted in the order they arrived. One that
waited ``[conductor] build_admission_timeout`` seconds is admitted anyway:
its servers exist already, and its caller must get its answer well inside
its own timeout.

Only fresh builds are counted. Reschedules, re-driven builds and
``build_instances`` casts are work the conductors accepted already and
never wait. Each conductor process counts its own builds.

    admission = Admission()
    admission.admit(count)     # waits; True, or False if it timed out
    ...
    admission.release(count)   # the build left the conductor
"""

import collections
import threading
import time

from nova_lite.conf import CONF


class Admission:
    """Counts the instances this process accepted and has not built yet;
    see the module docstring."""

    def __init__(self):
        self._cond = threading.Condition()
        self._queue = collections.deque()   # waiting creates, oldest first
        self.pending = 0

    def _fits(self, count, limit):
        # A request larger than the limit goes alone.
        return self.pending == 0 or self.pending + count <= limit

    def admit(self, count):
        """Count ``count`` instances as pending, once they fit (or after
        build_admission_timeout seconds). Returns whether they fitted."""
        limit = CONF.conductor.max_pending_builds
        with self._cond:
            if limit <= 0 or (not self._queue and self._fits(count, limit)):
                self.pending += count
                return True
            ticket = object()
            self._queue.append(ticket)
            deadline = (time.monotonic()
                        + CONF.conductor.build_admission_timeout)
            try:
                fitted = self._wait_turn(ticket, count, limit, deadline)
            finally:
                self._queue.remove(ticket)
                # The next in line may fit now.
                self._cond.notify_all()
            self.pending += count
            return fitted

    def _wait_turn(self, ticket, count, limit, deadline):
        while not (self._queue[0] is ticket and self._fits(count, limit)):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            self._cond.wait(remaining)
        return True

    def release(self, count):
        """``count`` instances admitted earlier left the conductor."""
        with self._cond:
            self.pending -= count
            self._cond.notify_all()
