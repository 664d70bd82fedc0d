"""Client side of the compute RPC API.

API version history:

* 1.0 - Initial version (release "acorn"): build_and_run_instance,
        terminate_instance.
"""

import oslo_messaging as messaging

from nova_lite import releases
from nova_lite import rpc
from nova_lite import rpc_pins

RPC_TOPIC = 'compute'
RPC_VERSION = '1.0'

VERSION_ALIASES = releases.rpc_aliases('compute')

# Every method names the version it needs (the oldest that has its current
# form), never the newest: a client pinned to an older release can then
# still send everything that did not change.


class ComputeAPI:

    def __init__(self):
        target = messaging.Target(topic=RPC_TOPIC, version=RPC_VERSION)
        self.client = rpc.get_client(target, pin=rpc_pins.Pin('compute'))

    def build_and_run_instance(self, context, instance, host, node,
                               request_spec, host_list):
        """Build ``instance`` on ``node`` of compute ``host`` (cast).

        ``host_list`` is the full list of Selections for this instance: the
        claimed one first, then the alternates for a reschedule.
        """
        cctxt = self.client.prepare(server=host, version='1.0')
        cctxt.cast(context, 'build_and_run_instance', instance=instance,
                   node=node, request_spec=request_spec, host_list=host_list)

    def terminate_instance(self, context, instance):
        """Destroy ``instance`` on its host and delete its record (cast)."""
        cctxt = self.client.prepare(server=instance.host, version='1.0')
        cctxt.cast(context, 'terminate_instance', instance=instance)
