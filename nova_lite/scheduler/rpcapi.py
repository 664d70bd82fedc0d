"""Client side of the scheduler RPC API.

API version history:

* 1.0 - Initial version (release "acorn"): select_destinations,
        update_provider_states.
* 1.1 - update_provider_states takes aggregate_uuids (release "bramble").
"""

import oslo_messaging as messaging

from nova_lite import releases
from nova_lite import rpc
from nova_lite import rpc_pins

RPC_TOPIC = 'scheduler'
RPC_VERSION = '1.1'

VERSION_ALIASES = releases.rpc_aliases('scheduler')

# Every method names the version it needs (the oldest that has its current
# form), never the newest: a client pinned to an older release can then
# still send everything that did not change.


class SchedulerAPI:

    def __init__(self):
        target = messaging.Target(topic=RPC_TOPIC, version=RPC_VERSION)
        self.client = rpc.get_client(target, pin=rpc_pins.Pin('scheduler'))

    def select_destinations(self, context, spec_obj, instance_uuids,
                            return_alternates=True, timeout=None):
        """Choose and claim a host per instance (call).

        Returns a list with one list of Selection per instance uuid, in
        order: the first Selection is claimed, the rest are alternates.
        Raises NoValidHost, whose message explains each filter's effect.
        ``timeout``: seconds to wait for the answer (else
        rpc_response_timeout).
        """
        cctxt = self.client.prepare(version='1.0', timeout=timeout)
        return cctxt.call(context, 'select_destinations', spec_obj=spec_obj,
                          instance_uuids=instance_uuids,
                          return_alternates=return_alternates)

    def update_provider_states(self, context, provider_uuids,
                               aggregate_uuids=None):
        """Tell every scheduler these providers, and these host aggregates,
        changed (fanout cast).

        A scheduler pinned to 1.0 gets the aggregate uuids among the
        provider uuids, the only way it can be told: a scheduler of this
        release re-reads such a uuid as an aggregate, and an acorn one
        (which has no aggregates) ignores it.
        """
        provider_uuids = set(provider_uuids or ())
        aggregate_uuids = set(aggregate_uuids or ())
        if not provider_uuids and not aggregate_uuids:
            return
        args = {'provider_uuids': sorted(provider_uuids)}
        version = '1.0'
        if aggregate_uuids:
            if self.client.can_send_version('1.1'):
                version = '1.1'
                args['aggregate_uuids'] = sorted(aggregate_uuids)
            else:
                args['provider_uuids'] = sorted(provider_uuids
                                                | aggregate_uuids)
        cctxt = self.client.prepare(fanout=True, version=version)
        cctxt.cast(context, 'update_provider_states', **args)
