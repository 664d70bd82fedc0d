"""GroupAffinityFilter: the old name of ServerGroupAffinityFilter
(seed 002)."""

from oslo_log import log as logging

from nova_lite.scheduler.filters import server_group_affinity_filter

LOG = logging.getLogger(__name__)


class GroupAffinityFilter(
        server_group_affinity_filter.ServerGroupAffinityFilter):
    """For a request in a server group (scheduler hint ``group``, naming
    the group by uuid or name) with the ``affinity`` policy, passes only
    the hosts of the group's members (``instance_group.hosts``); with no
    member placed yet, or no such group, every host. Exactly
    ServerGroupAffinityFilter, kept so configurations of the older
    releases load; it logs a deprecation warning once.
    """

    _warned = False

    def __init__(self):
        super().__init__()
        if not GroupAffinityFilter._warned:
            GroupAffinityFilter._warned = True
            LOG.warning('GroupAffinityFilter is deprecated: enable '
                        'ServerGroupAffinityFilter instead.')
