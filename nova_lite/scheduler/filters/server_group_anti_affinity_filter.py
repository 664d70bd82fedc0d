"""ServerGroupAntiAffinityFilter: members of an anti-affinity group apart."""

import numpy as np

from nova_lite.scheduler import filters
from nova_lite.scheduler.filters import server_group_affinity_filter
from nova_lite.scheduler import utils


def members_on_host(host_state, group):
    """How many of the group's members run on the host."""
    members = utils.spec_field(group, 'members') or ()
    instances = getattr(host_state, 'instances', None) or {}
    return sum(1 for uuid in set(members) if uuid in instances)


def max_server_per_host(group):
    """The group's ``max_server_per_host`` rule as an int (default 1).

    Not clamped: the API accepts the string "0", and Nova then keeps every
    host that does not already run the instance out (no host runs fewer
    than 0 members). A value that is not an integer counts as the
    default.
    """
    rules = utils.spec_field(group, 'rules') or {}
    try:
        return int(rules.get('max_server_per_host', 1))
    except (TypeError, ValueError):
        return 1


class ServerGroupAntiAffinityFilter(filters.BaseHostFilter):
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

    policy_name = 'anti-affinity'

    @staticmethod
    def _fails(count, limit, stays):
        """The rule, for one host's numbers and for whole columns alike:
        ``count`` members on the host reach ``limit``, and the instance
        is not one ``stays`` on its own host."""
        return (count >= limit) & np.logical_not(stays)

    def _request(self, spec_obj):
        """(group, its limit, the instance uuid when it may stay on its
        host), or None when this filter does not apply."""
        group = server_group_affinity_filter.group_of(spec_obj,
                                                     self.policy_name)
        if group is None:
            return None
        uuid = utils.spec_field(spec_obj, 'instance_uuid')
        if utils.spec_field(spec_obj, 'num_instances', 1) > 1:
            uuid = None
        return group, max_server_per_host(group), uuid

    def host_passes(self, host_state, spec_obj):
        return self.rejection_reason(host_state, spec_obj) is None

    def filter_population(self, population, spec_obj, among=None):
        request = self._request(spec_obj)
        if request is None:
            return True
        group, limit, uuid = request
        members = set(utils.spec_field(group, 'members') or ())
        stays = (population.index.any_per_row([uuid]) if uuid
                 else False)
        return ~self._fails(population.index.count_per_row(members), limit,
                            stays)

    def rejection_reason(self, host_state, spec_obj):
        request = self._request(spec_obj)
        if request is None:
            return None
        group, limit, uuid = request
        instances = getattr(host_state, 'instances', None) or {}
        count = members_on_host(host_state, group)
        if not self._fails(count, limit, bool(uuid) and uuid in instances):
            return None
        return 'run %d of group %s' % (
            count, server_group_affinity_filter.group_name(group))
