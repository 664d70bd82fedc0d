"""Client side of the scheduler RPC API.

API version history:

* 1.0 - Initial version (release "acorn"): select_destinations,
        update_provider_states.
* 1.1 - update_provider_states takes aggregate_uuids (release "bramble").
* 1.2 - update_provider_states takes generations (release "bramble").
* 1.3 - update_provider_states takes instance_states (release "bramble").
"""

import oslo_messaging as messaging

from nova_lite import releases
from nova_lite import rpc
from nova_lite import rpc_pins

RPC_TOPIC = 'scheduler'
RPC_VERSION = '1.3'

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
                               aggregate_uuids=None, generations=None,
                               instance_states=None):
        """Tell every scheduler these providers, and these host aggregates,
        changed (fanout cast).

        A scheduler pinned to 1.0 gets the aggregate uuids among the
        provider uuids, the only way it can be told: a scheduler of this
        release re-reads such a uuid as an aggregate, and an acorn one
        (which has no aggregates) ignores it. ``generations`` ({uuid:
        generation} of the providers whose new generation the writer
        knows) goes only to schedulers that take 1.2; one pinned below
        re-reads every provider, as it always did.

        ``instance_states`` ({node uuid: {instance uuid: (vm_state,
        task_state, stamp)}}, see ``placement.changes.note_instance``)
        goes only to schedulers that take 1.3; to one pinned below, those
        nodes are plain providers to re-read, which is how it learns of
        its instances' states.
        """
        provider_uuids = set(provider_uuids or ())
        aggregate_uuids = set(aggregate_uuids or ())
        instance_states = {node: states for node, states
                           in (instance_states or {}).items() if states}
        send_states = bool(instance_states) and self.client.can_send_version(
            '1.3')
        if instance_states and not send_states:
            provider_uuids |= set(instance_states)
        if not provider_uuids and not aggregate_uuids and not send_states:
            return
        version, args = self._notice_args(provider_uuids, aggregate_uuids)
        generations = {uuid: generation for uuid, generation
                       in (generations or {}).items()
                       if uuid in provider_uuids}
        if generations and self.client.can_send_version('1.2'):
            version = '1.2'
            args['generations'] = generations
        if send_states:
            version = '1.3'
            args['instance_states'] = {
                node: {uuid: list(state) for uuid, state in states.items()}
                for node, states in instance_states.items()}
        cctxt = self.client.prepare(fanout=True, version=version)
        cctxt.cast(context, 'update_provider_states', **args)

    def _notice_args(self, provider_uuids, aggregate_uuids):
        """(version, arguments) of a notice without generations."""
        args = {'provider_uuids': sorted(provider_uuids)}
        if not aggregate_uuids:
            return '1.0', args
        if self.client.can_send_version('1.1'):
            args['aggregate_uuids'] = sorted(aggregate_uuids)
            return '1.1', args
        args['provider_uuids'] = sorted(provider_uuids | aggregate_uuids)
        return '1.0', args
