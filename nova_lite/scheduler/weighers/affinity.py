"""ServerGroupSoftAffinityWeigher: soft-affinity groups prefer hosts with
their members."""

import numpy as np
from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite.scheduler import utils
from nova_lite.scheduler import weighers

LOG = logging.getLogger(__name__)


def members_on_host(host_state, spec_obj, policy_name):
    """Members of the request's server group running on the host, or 0
    when the request has no group with ``policy_name``."""
    group = utils.spec_field(spec_obj, 'instance_group')
    if utils.group_policy(group) != policy_name:
        return 0
    members = utils.spec_field(group, 'members') or ()
    instances = getattr(host_state, 'instances', None) or {}
    return sum(1 for uuid in set(members) if uuid in instances)


class _SoftAffinityWeigherBase(weighers.BaseHostWeigher):
    policy_name = None
    option = None
    _warned = False

    def weight_multiplier(self, host_state):
        value = utils.get_weight_multiplier(
            host_state, self.option,
            getattr(CONF.filter_scheduler, self.option))
        if value < 0:
            # The option refuses negative values; from aggregate metadata
            # one would turn affinity into anti-affinity or back.
            if not self._warned:
                self._warned = True
                LOG.warning('Ignoring negative %s of host %s aggregates',
                            self.option, host_state.host)
            return 0.0
        return value

    def _weigh_object(self, host_state, weight_properties):
        return members_on_host(host_state, weight_properties,
                               self.policy_name)

    def multiplier_population(self, population):
        value = population.aggregate_min(
            self.option, getattr(CONF.filter_scheduler, self.option))
        if np.ndim(value) == 0:
            return max(value, 0.0)
        if (value < 0).any():
            if not self._warned:
                self._warned = True
                LOG.warning('Ignoring negative %s of some hosts\' '
                            'aggregates', self.option)
            value = np.maximum(value, 0.0)
        return value

    def weigh_population(self, population, spec_obj):
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
    option = 'soft_affinity_weight_multiplier'
