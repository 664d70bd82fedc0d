"""The builds a compute has received: duplicates dropped, receipts sent.

A conductor that saw no receipt for a build within ``[conductor]
lost_cast_grace`` seconds casts it again to the same compute and node
(conductor/tasks/lost_casts.py): only the receipt may have been lost. So
a compute drops a build it is running or queued already (same instance,
same node), or has built there (its claim is tracked), and acknowledges
it once more; a build it no longer has (it restarted) is built. A
reschedule to another node of this host is another build.

    receipts = build_receipts.Receipts()
    if receipts.open(uuid, node): ... build ...; receipts.close(uuid, node)
    build_receipts.acknowledge(lambda: conductor_api, context, uuid, host)
"""

import threading

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


class Receipts:
    """The (instance uuid, node) builds received and not finished."""

    def __init__(self):
        self._lock = threading.Lock()
        self._open = set()

    def open(self, uuid, node):
        """Record a build; False if it is here already (a duplicate)."""
        with self._lock:
            if (uuid, node) in self._open:
                return False
            self._open.add((uuid, node))
            return True

    def close(self, uuid, node):
        with self._lock:
            self._open.discard((uuid, node))

    def count(self):
        """How many builds are queued or running."""
        with self._lock:
            return len(self._open)


def may_combine(conductor_api, receipts, slots):
    """Whether the build just opened in ``receipts`` may be acknowledged
    by its first save (``build_started``): the build starts at once (at
    most ``slots`` builds run at a time) and the pin allows it
    (``conductor_api`` returns the client)."""
    if receipts.count() > slots:
        return False
    try:
        return conductor_api().can_send_build_started()
    except Exception as exc:
        LOG.warning('Cannot tell which receipt the conductors take (%s); '
                    'sending the older one', exc)
        return False


def started(conductor_api, context, instance, host):
    """Send the receipt and first save of ``instance``'s build (its
    changes) in one cast. One that cannot be sent is logged: the final
    save carries the same changes, and a conductor casts the build
    again, which is dropped here as a duplicate and acknowledged."""
    try:
        conductor_api.build_started(context, instance, host)
    except Exception as exc:
        LOG.warning('Cannot send the start of the build of instance %s '
                    '(%s); a conductor will cast it again', instance.uuid,
                    exc)


def fence(conductor_api, context, uuid, host, timeout):
    """Before a build whose start was sent is handed back: acknowledge
    it and wait for the answer, so that the start, if it is still on its
    way, finds the build acknowledged and is not applied over the
    hand-back. Without an answer the hand-back goes ahead (logged)."""
    try:
        conductor_api.build_received(context, uuid, host, wait=True,
                                     timeout=timeout)
    except Exception as exc:
        LOG.warning('Cannot acknowledge the build of instance %s before '
                    'handing it back (%s)', uuid, exc)


def acknowledge(conductor_api, context, uuid, host):
    """Tell the conductors ``host`` received the build of ``uuid``
    (``conductor_api`` returns the client). A receipt that cannot be sent
    is logged: the conductors then cast the build again, and it is
    dropped here as a duplicate."""
    try:
        conductor_api().build_received(context, uuid, host)
    except Exception as exc:
        LOG.warning('Cannot acknowledge the build of instance %s (%s); '
                    'a conductor will cast it again', uuid, exc)
