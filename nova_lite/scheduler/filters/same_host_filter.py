"""SameHostFilter: next to given instances (hint ``same_host``)."""

import numpy as np

from nova_lite.scheduler.filters import rules
from nova_lite.scheduler import host_inputs


def hinted_uuids(spec_obj, hint):
    """The instance uuids scheduler hint ``hint`` lists, or None."""
    uuids = spec_obj.get_scheduler_hint(hint)
    if not uuids:
        return None
    return [uuids] if isinstance(uuids, str) else uuids


class HintedInstancesFilter(rules.InputsFilter):
    """Passes hosts running (``together``) or not running any of the
    instances the ``hint`` scheduler hint lists; without the hint, every
    host."""

    # Where the hinted instances run does not change within a request.
    run_filter_once_per_request = True
    hint = None
    together = None
    reason_text = None

    def parse_request(self, spec_obj):
        uuids = hinted_uuids(spec_obj, self.hint)
        return rules.EVERY_HOST if uuids is None else uuids

    def reads(self, uuids):
        return (host_inputs.RunsAny(uuids),)

    def fails(self, uuids, runs_hinted):
        return np.not_equal(runs_hinted, self.together)

    def reason(self, uuids, runs_hinted):
        return self.reason_text


class SameHostFilter(HintedInstancesFilter):
    """Passes hosts running one of the instances whose uuids the
    ``same_host`` scheduler hint lists; without the hint, every host.
    The opposite of DifferentHostFilter. Rejection reason: "run none of
    same_host".
    """

    hint = 'same_host'
    together = True
    reason_text = 'run none of same_host'
