"""The RPC clients of the API's compute classes, made on first use.

An API object can so be built (and its clients replaced in tests, by
setting ``_compute``, ``_conductor`` or ``_scheduler``) before the bus
is set up.
"""

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.scheduler import rpcapi as scheduler_rpcapi


class RPCClients:

    def __init__(self):
        self._compute = None
        self._conductor = None
        self._scheduler = None

    @property
    def compute_rpcapi(self):
        if self._compute is None:
            self._compute = compute_rpcapi.ComputeAPI()
        return self._compute

    @property
    def conductor_rpcapi(self):
        if self._conductor is None:
            self._conductor = conductor_rpcapi.ConductorAPI()
        return self._conductor

    @property
    def scheduler_rpcapi(self):
        if self._scheduler is None:
            self._scheduler = scheduler_rpcapi.SchedulerAPI()
        return self._scheduler
