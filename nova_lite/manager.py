"""Base class of the RPC endpoints (conductor, scheduler, compute).

A manager holds a service's behaviour; the Service (``nova_lite.service``)
holds its plumbing. Periodic tasks are oslo.service's: decorate a method
with ``@periodic_task.periodic_task(spacing=N)`` and the service runs it.
"""

from oslo_log import log as logging
from oslo_service import periodic_task

from nova_lite.conf import CONF

LOG = logging.getLogger(__name__)


class Manager(periodic_task.PeriodicTasks):
    """Common life-cycle hooks, called by the service in this order:
    ``init_host`` (before the RPC server starts), ``post_start_hook``
    (after it consumes), ``cleanup_host`` (after it stopped)."""

    def __init__(self, host, service_name):
        super().__init__(CONF)
        self.host = host
        self.service_name = service_name

    def init_host(self):
        pass

    def post_start_hook(self):
        pass

    def cleanup_host(self):
        pass

    def reset(self):
        """SIGHUP mutated the configuration (nova_lite/reload.py): apply
        what this manager copied from it."""

    def periodic_tasks(self, context, raise_on_error=False):
        """Run due periodic tasks; return seconds until the next is due."""
        return self.run_periodic_tasks(context, raise_on_error=raise_on_error)
