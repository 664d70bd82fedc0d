"""ServerGroupAntiAffinityFilter: members of an anti-affinity group apart."""

import numpy as np

from nova_lite.scheduler.filters import rules
from nova_lite.scheduler.filters import server_group_affinity_filter
from nova_lite.scheduler import host_inputs
from nova_lite.scheduler import utils


def max_server_per_host(group):
    """The group's ``max_server_per_host`` rule as an int (default 1).

    Not clamped: the API accepts the string "0", and Nova then keeps every
    host that does not already run the instance out (no host runs fewer
    than 0 members). A value that is not an integer counts as the
    default.
    """
    group_rules = utils.spec_field(group, 'rules') or {}
    try:
        return int(group_rules.get('max_server_per_host', 1))
    except (TypeError, ValueError):
        return 1


class ServerGroupAntiAffinityFilter(rules.InputsFilter):
    """For a request in a server group with the ``anti-affinity`` policy
    (scheduler hint ``group``), passes hosts running fewer of the group's
    members than its ``max_server_per_host`` rule (default 1, so none);
    for requests without such a group, every host.

    Members are counted in ``host_state.instances``, which the scheduler
    updates with each instance it places, so the rule holds across the
    instances of one request. A host already running the instance itself
    passes (a move may consider its source host), except in a request for
    several instances, where that shortcut would let later instances
    join the first. Rejection reason: "run <n> of group <name or uuid>".
    """

    # The answer changes on every host as the group's members are placed
    # (BaseHostFilter.incremental): asked about every host each time.
    incremental = False

    policy_name = 'anti-affinity'

    def parse_request(self, spec_obj):
        """(group, its limit, the instance uuid when it may stay on its
        host), or EVERY_HOST."""
        group = server_group_affinity_filter.group_of(spec_obj,
                                                     self.policy_name)
        if group is None:
            return rules.EVERY_HOST
        uuid = utils.spec_field(spec_obj, 'instance_uuid')
        if utils.spec_field(spec_obj, 'num_instances', 1) > 1:
            uuid = None
        return group, max_server_per_host(group), uuid

    def reads(self, request):
        group, _limit, uuid = request
        return (host_inputs.CountRunning(
                    server_group_affinity_filter.group_members(group)),
                host_inputs.RunsAny([uuid] if uuid else ()))

    def fails(self, request, count, stays):
        """``count`` members on the host reach the limit, and the
        instance is not one that stays on its own host."""
        return (count >= request[1]) & np.logical_not(stays)

    def reason(self, request, count, stays):
        return 'run %d of group %s' % (
            count, server_group_affinity_filter.group_name(request[0]))
