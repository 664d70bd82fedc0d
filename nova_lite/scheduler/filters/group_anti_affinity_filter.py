"""GroupAntiAffinityFilter: the older, host-list rule of server group
anti-affinity (seed 002)."""

from oslo_log import log as logging

from nova_lite.scheduler.filters import server_group_affinity_filter

LOG = logging.getLogger(__name__)


class GroupAntiAffinityFilter(
        server_group_affinity_filter.GroupHostsFilter):
    """For a request in a server group (scheduler hint ``group``, naming
    the group by uuid or name) with the ``anti-affinity`` policy, passes
    hosts not in the group's host list (``instance_group.hosts``): each
    member on a different host. Without such a group, every host.

    Unlike ServerGroupAntiAffinityFilter it ignores the
    ``max_server_per_host`` rule, as the older releases did; it logs a
    deprecation warning once. Rejection reason: "a host of group <name or
    uuid>".
    """

    policy_name = 'anti-affinity'
    together = False
    reason_text = 'a host of group %s'
    _warned = False

    def __init__(self):
        super().__init__()
        if not GroupAntiAffinityFilter._warned:
            GroupAntiAffinityFilter._warned = True
            LOG.warning('GroupAntiAffinityFilter is deprecated: enable '
                        'ServerGroupAntiAffinityFilter instead.')
