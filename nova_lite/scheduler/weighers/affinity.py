"""ServerGroupSoftAffinityWeigher: soft-affinity groups prefer hosts with
their members."""

import numpy as np

from nova_lite.scheduler import host_inputs
from nova_lite.scheduler import utils
from nova_lite.scheduler.weighers import rules


class _SoftAffinityWeigherBase(rules.PositiveMultiplier,
                               rules.InputsWeigher):
    """Weighs a host by how many members of the request's server group
    (with ``policy_name``) it runs, that number negated when
    ``together`` is False; 0.0 for requests without such a group."""

    def incremental(self, spec_obj):
        """Only for requests without such a group: the group's members
        change as the request's instances are placed
        (BaseHostWeigher.incremental)."""
        return self.parse_request(spec_obj) is None

    policy_name = None
    together = True

    def parse_request(self, spec_obj):
        """The group's member uuids, or None."""
        group = utils.spec_field(spec_obj, 'instance_group')
        if utils.group_policy(group) != self.policy_name:
            return None
        return utils.spec_field(group, 'members') or ()

    def reads(self, members):
        return (host_inputs.CountRunning(members),)

    def weight(self, members, count):
        return np.multiply(count, 1.0 if self.together else -1.0)


class ServerGroupSoftAffinityWeigher(_SoftAffinityWeigherBase):
    """For a request in a ``soft-affinity`` server group, weighs a host
    by how many of the group's members it runs: the host with the most
    comes first. Other requests weigh every host 0.
    ``soft_affinity_weight_multiplier`` (positive only; a negative value
    from aggregate metadata counts as 0.0) scales it.
    """

    policy_name = 'soft-affinity'
    multiplier_key = 'soft_affinity_weight_multiplier'
