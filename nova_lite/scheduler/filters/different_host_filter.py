"""DifferentHostFilter: away from given instances (hint
``different_host``)."""

from nova_lite.scheduler import filters
from nova_lite.scheduler import utils


class DifferentHostFilter(filters.BaseHostFilter):
    """Passes hosts running none of the instances whose uuids the
    ``different_host`` scheduler hint lists; without the hint, every
    host. The opposite of SameHostFilter. Rejection reason: "run a
    different_host instance".
    """

    # Where the hinted instances run does not change within a request.
    run_filter_once_per_request = True

    def host_passes(self, host_state, spec_obj):
        uuids = spec_obj.get_scheduler_hint('different_host')
        return not uuids or not utils.instance_uuids_overlap(host_state,
                                                             uuids)

    def filter_population(self, population, spec_obj):
        uuids = spec_obj.get_scheduler_hint('different_host')
        if not uuids:
            return True
        if isinstance(uuids, str):
            uuids = [uuids]
        return ~population.index.any_per_row(uuids)

    def rejection_reason(self, host_state, spec_obj):
        if self.host_passes(host_state, spec_obj):
            return None
        return 'run a different_host instance'
