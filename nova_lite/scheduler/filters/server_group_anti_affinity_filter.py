"""ServerGroupAntiAffinityFilter: members of an anti-affinity group apart."""

from nova_lite.scheduler import filters
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

    def _count_and_limit(self, host_state, spec_obj):
        """(members on host, limit), or None when the host passes."""
        group = utils.spec_field(spec_obj, 'instance_group')
        if utils.group_policy(group) != self.policy_name:
            return None
        uuid = utils.spec_field(spec_obj, 'instance_uuid')
        instances = getattr(host_state, 'instances', None) or {}
        if (uuid and uuid in instances
                and utils.spec_field(spec_obj, 'num_instances', 1) <= 1):
            return None
        count = members_on_host(host_state, group)
        limit = max_server_per_host(group)
        return None if count < limit else (count, limit)

    def host_passes(self, host_state, spec_obj):
        return self._count_and_limit(host_state, spec_obj) is None

    def filter_population(self, population, spec_obj):
        group = utils.spec_field(spec_obj, 'instance_group')
        if utils.group_policy(group) != self.policy_name:
            return True
        members = set(utils.spec_field(group, 'members') or ())
        passed = (population.index.count_per_row(members)
                  < max_server_per_host(group))
        uuid = utils.spec_field(spec_obj, 'instance_uuid')
        if uuid and utils.spec_field(spec_obj, 'num_instances', 1) <= 1:
            passed |= population.index.any_per_row([uuid])
        return passed

    def rejection_reason(self, host_state, spec_obj):
        found = self._count_and_limit(host_state, spec_obj)
        if found is None:
            return None
        group = utils.spec_field(spec_obj, 'instance_group')
        return 'run %d of group %s' % (found[0], (
            utils.spec_field(group, 'name') or
            utils.spec_field(group, 'uuid')))
