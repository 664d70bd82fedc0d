"""SameHostFilter: next to given instances (hint ``same_host``)."""

import numpy as np

from nova_lite.scheduler import filters
from nova_lite.scheduler import utils


def hinted_uuids(spec_obj, hint):
    """The instance uuids scheduler hint ``hint`` lists, or None."""
    uuids = spec_obj.get_scheduler_hint(hint)
    if not uuids:
        return None
    return [uuids] if isinstance(uuids, str) else uuids


class HintedInstancesFilter(filters.BaseHostFilter):
    """Passes hosts running (``together``) or not running any of the
    instances the ``hint`` scheduler hint lists; without the hint, every
    host. The rule, ``_fails``, is stated once for one host's answer to
    "runs one of them" and for the population's column of answers."""

    # Where the hinted instances run does not change within a request.
    run_filter_once_per_request = True
    hint = None
    together = None
    reason = None

    def _fails(self, runs_hinted):
        return np.not_equal(runs_hinted, self.together)

    def host_passes(self, host_state, spec_obj):
        return self.rejection_reason(host_state, spec_obj) is None

    def filter_population(self, population, spec_obj, among=None):
        uuids = hinted_uuids(spec_obj, self.hint)
        if uuids is None:
            return True
        return ~self._fails(population.index.any_per_row(uuids))

    def rejection_reason(self, host_state, spec_obj):
        uuids = hinted_uuids(spec_obj, self.hint)
        if uuids is None or not self._fails(
                utils.instance_uuids_overlap(host_state, uuids)):
            return None
        return self.reason


class SameHostFilter(HintedInstancesFilter):
    """Passes hosts running one of the instances whose uuids the
    ``same_host`` scheduler hint lists; without the hint, every host.
    The opposite of DifferentHostFilter. Rejection reason: "run none of
    same_host".
    """

    hint = 'same_host'
    together = True
    reason = 'run none of same_host'
