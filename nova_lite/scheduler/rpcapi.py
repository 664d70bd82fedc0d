"""Client side of the scheduler RPC API.

API version history:

* 1.0 - Initial version (release "acorn"): select_destinations,
        update_provider_states.
"""

import oslo_messaging as messaging

from nova_lite import releases
from nova_lite import rpc
from nova_lite import rpc_pins

RPC_TOPIC = 'scheduler'
RPC_VERSION = '1.0'

VERSION_ALIASES = releases.rpc_aliases('scheduler')


class SchedulerAPI:

    def __init__(self):
        target = messaging.Target(topic=RPC_TOPIC, version=RPC_VERSION)
        self.client = rpc.get_client(target, pin=rpc_pins.Pin('scheduler'))

    def select_destinations(self, context, spec_obj, instance_uuids,
                            return_alternates=True):
        """Choose and claim a host per instance (call).

        Returns a list with one list of Selection per instance uuid, in
        order: the first Selection is claimed, the rest are alternates.
        Raises NoValidHost, whose message explains each filter's effect.
        """
        cctxt = self.client.prepare()
        return cctxt.call(context, 'select_destinations', spec_obj=spec_obj,
                          instance_uuids=instance_uuids,
                          return_alternates=return_alternates)

    def update_provider_states(self, context, provider_uuids):
        """Tell every scheduler these providers changed (fanout cast).

        Since the release after "acorn" the uuids may include those of host
        aggregates whose hosts or metadata changed; older schedulers
        ignore uuids that are no compute node, and resync within
        [scheduler] host_state_resync_interval.
        """
        if not provider_uuids:
            return
        cctxt = self.client.prepare(fanout=True)
        cctxt.cast(context, 'update_provider_states',
                   provider_uuids=sorted(provider_uuids))
