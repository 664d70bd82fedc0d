"""DifferentHostFilter: away from given instances (hint
``different_host``)."""

from nova_lite.scheduler.filters import same_host_filter


class DifferentHostFilter(same_host_filter.HintedInstancesFilter):
    """Passes hosts running none of the instances whose uuids the
    ``different_host`` scheduler hint lists; without the hint, every
    host. The opposite of SameHostFilter. Rejection reason: "run a
    different_host instance".
    """

    hint = 'different_host'
    together = False
    reason_text = 'run a different_host instance'
