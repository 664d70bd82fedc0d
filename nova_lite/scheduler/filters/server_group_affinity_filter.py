"""ServerGroupAffinityFilter: members of an affinity group together."""

import numpy as np

from nova_lite.scheduler.filters import rules
from nova_lite.scheduler import host_inputs
from nova_lite.scheduler import utils


def group_of(spec_obj, policy_name):
    """The request's server group when its policy is ``policy_name``."""
    group = utils.spec_field(spec_obj, 'instance_group')
    return group if utils.group_policy(group) == policy_name else None


def group_name(group):
    return utils.spec_field(group, 'name') or utils.spec_field(group, 'uuid')


def group_members(group):
    """The uuids of the group's members."""
    return utils.spec_field(group, 'members') or ()


class GroupHostsFilter(rules.InputsFilter):
    """Passes, for a request in a server group with the ``policy_name``
    policy, the hosts in (``together``) or out of the group's host list
    (``instance_group.hosts``); every host when the request has no such
    group or the group no hosts."""

    # The answer changes on every host as the group's members are placed
    # (BaseHostFilter.incremental): asked about every host each time.
    incremental = False

    policy_name = None
    together = None
    reason_text = None

    def parse_request(self, spec_obj):
        """(group, its hosts), or EVERY_HOST."""
        group = group_of(spec_obj, self.policy_name)
        hosts = utils.spec_field(group, 'hosts') if group else None
        return (group, hosts) if hosts else rules.EVERY_HOST

    def reads(self, request):
        return (host_inputs.HostNamed(request[1]),)

    def fails(self, request, in_group_hosts):
        return np.not_equal(in_group_hosts, self.together)

    def reason(self, request, in_group_hosts):
        return self.reason_text % group_name(request[0])


class ServerGroupAffinityFilter(GroupHostsFilter):
    """For a request in a server group with the ``affinity`` policy
    (scheduler hint ``group``), passes only the hosts the group's
    members already run on (``instance_group.hosts``); when the group has
    no member placed yet, and for requests without such a group, every
    host. Rejection reason: "not a host of group <name or uuid>".
    """

    policy_name = 'affinity'
    together = True
    reason_text = 'not a host of group %s'
