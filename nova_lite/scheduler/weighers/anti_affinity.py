"""ServerGroupSoftAntiAffinityWeigher: soft-anti-affinity groups avoid
hosts with their members."""

from nova_lite.scheduler.weighers import affinity


class ServerGroupSoftAntiAffinityWeigher(affinity._SoftAffinityWeigherBase):
    """For a request in a ``soft-anti-affinity`` server group, weighs a
    host by minus the number of the group's members it runs: the host
    with the fewest comes first. Other requests weigh every host 0.
    ``soft_anti_affinity_weight_multiplier`` (positive only; a negative
    value from aggregate metadata counts as 0.0) scales it.
    """

    policy_name = 'soft-anti-affinity'
    multiplier_key = 'soft_anti_affinity_weight_multiplier'
    together = False
