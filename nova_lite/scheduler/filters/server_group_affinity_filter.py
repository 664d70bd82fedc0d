"""ServerGroupAffinityFilter: members of an affinity group together."""

import numpy as np

from nova_lite.scheduler import filters
from nova_lite.scheduler import utils


def group_of(spec_obj, policy_name):
    """The request's server group when its policy is ``policy_name``."""
    group = utils.spec_field(spec_obj, 'instance_group')
    return group if utils.group_policy(group) == policy_name else None


def group_name(group):
    return utils.spec_field(group, 'name') or utils.spec_field(group, 'uuid')


class GroupHostsFilter(filters.BaseHostFilter):
    """Passes, for a request in a server group with the ``policy_name``
    policy, the hosts in (``together``) or out of the group's host list
    (``instance_group.hosts``); every host when the request has no such
    group or the group no hosts. The rule, ``_fails``, is stated once
    for one host's answer to "is a host of the group" and for the
    population's column of answers."""

    policy_name = None
    together = None
    reason = None

    def _group_hosts(self, spec_obj):
        """(group, its hosts), or None when this filter does not
        apply."""
        group = group_of(spec_obj, self.policy_name)
        hosts = utils.spec_field(group, 'hosts') if group else None
        return (group, hosts) if hosts else None

    def _fails(self, in_group_hosts):
        return np.not_equal(in_group_hosts, self.together)

    def host_passes(self, host_state, spec_obj):
        return self.rejection_reason(host_state, spec_obj) is None

    def filter_population(self, population, spec_obj, among=None):
        found = self._group_hosts(spec_obj)
        if found is None:
            return True
        return ~self._fails(population.hosts_named(found[1]))

    def rejection_reason(self, host_state, spec_obj):
        found = self._group_hosts(spec_obj)
        if found is None or not self._fails(host_state.host in found[1]):
            return None
        return self.reason % group_name(found[0])


class ServerGroupAffinityFilter(GroupHostsFilter):
    """For a request in a server group with the ``affinity`` policy
    (scheduler hint ``group``), passes only the hosts the group's
    members already run on (``instance_group.hosts``); when the group has
    no member placed yet, and for requests without such a group, every
    host. Rejection reason: "not a host of group <name or uuid>".
    """

    policy_name = 'affinity'
    together = True
    reason = 'not a host of group %s'
