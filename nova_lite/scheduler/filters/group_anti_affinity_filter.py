"""GroupAntiAffinityFilter: the older, host-list rule of server group
anti-affinity (seed 002)."""

from oslo_log import log as logging

from nova_lite.scheduler import filters
from nova_lite.scheduler import utils

LOG = logging.getLogger(__name__)


class GroupAntiAffinityFilter(filters.BaseHostFilter):
    """For a request in a server group (scheduler hint ``group``, naming
    the group by uuid or name) with the ``anti-affinity`` policy, passes
    hosts not in the group's host list (``instance_group.hosts``): each
    member on a different host. Without such a group, every host.

    Unlike ServerGroupAntiAffinityFilter it ignores the
    ``max_server_per_host`` rule, as the older releases did; it logs a
    deprecation warning once. Rejection reason: "a host of group <name or
    uuid>".
    """

    _warned = False

    def __init__(self):
        super().__init__()
        if not GroupAntiAffinityFilter._warned:
            GroupAntiAffinityFilter._warned = True
            LOG.warning('GroupAntiAffinityFilter is deprecated: enable '
                        'ServerGroupAntiAffinityFilter instead.')

    @staticmethod
    def _group(spec_obj):
        group = utils.spec_field(spec_obj, 'instance_group')
        return group if utils.group_policy(group) == 'anti-affinity' else None

    def host_passes(self, host_state, spec_obj):
        group = self._group(spec_obj)
        hosts = utils.spec_field(group, 'hosts') if group else None
        return not hosts or host_state.host not in hosts

    def filter_population(self, population, spec_obj):
        group = self._group(spec_obj)
        hosts = utils.spec_field(group, 'hosts') if group else None
        return ~population.hosts_named(hosts) if hosts else True

    def rejection_reason(self, host_state, spec_obj):
        if self.host_passes(host_state, spec_obj):
            return None
        group = self._group(spec_obj)
        return 'a host of group %s' % (utils.spec_field(group, 'name') or
                                       utils.spec_field(group, 'uuid'))
