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
