"""ServerGroupAffinityFilter: members of an affinity group together."""

from nova_lite.scheduler import filters
from nova_lite.scheduler import utils


class ServerGroupAffinityFilter(filters.BaseHostFilter):
    """For a request in a server group with the ``affinity`` policy
    (scheduler hint ``group``), passes only the hosts the group's
    members already run on (``instance_group.hosts``); when the group has
    no member placed yet, and for requests without such a group, every
    host. Rejection reason: "not a host of group <name or uuid>".
    """

    policy_name = 'affinity'

    def _group_hosts(self, spec_obj):
        """The group's hosts, or None when this filter does not apply."""
        group = utils.spec_field(spec_obj, 'instance_group')
        if utils.group_policy(group) != self.policy_name:
            return None
        return utils.spec_field(group, 'hosts') or None

    def host_passes(self, host_state, spec_obj):
        hosts = self._group_hosts(spec_obj)
        return not hosts or host_state.host in hosts

    def filter_population(self, population, spec_obj):
        hosts = self._group_hosts(spec_obj)
        return population.hosts_named(hosts) if hosts else True

    def rejection_reason(self, host_state, spec_obj):
        if self.host_passes(host_state, spec_obj):
            return None
        group = utils.spec_field(spec_obj, 'instance_group')
        return 'not a host of group %s' % (
            utils.spec_field(group, 'name') or
            utils.spec_field(group, 'uuid'))
