"""ServerGroupSoftAffinityWeigher: soft-affinity groups prefer hosts with
their members."""

from nova_lite.scheduler import utils
from nova_lite.scheduler.weighers import rules


def members_on_host(host_state, spec_obj, policy_name):
    """Members of the request's server group running on the host, or 0
    when the request has no group with ``policy_name``."""
    group = utils.spec_field(spec_obj, 'instance_group')
    if utils.group_policy(group) != policy_name:
        return 0
    members = utils.spec_field(group, 'members') or ()
    instances = getattr(host_state, 'instances', None) or {}
    return sum(1 for uuid in set(members) if uuid in instances)


class _SoftAffinityWeigherBase(rules.PositiveMultiplier):
    policy_name = None

    def _weigh_object(self, host_state, weight_properties):
        return members_on_host(host_state, weight_properties,
                               self.policy_name)

    def weigh_population(self, population, spec_obj, among=None):
        group = utils.spec_field(spec_obj, 'instance_group')
        if utils.group_policy(group) != self.policy_name:
            return 0.0
        members = set(utils.spec_field(group, 'members') or ())
        return population.index.count_per_row(members).astype(float)


class ServerGroupSoftAffinityWeigher(_SoftAffinityWeigherBase):
    """For a request in a ``soft-affinity`` server group, weighs a host
    by how many of the group's members it runs: the host with the most
    comes first. Other requests weigh every host 0.
    ``soft_affinity_weight_multiplier`` (positive only; a negative value
    from aggregate metadata counts as 0.0) scales it.
    """

    policy_name = 'soft-affinity'
    multiplier_key = 'soft_affinity_weight_multiplier'
