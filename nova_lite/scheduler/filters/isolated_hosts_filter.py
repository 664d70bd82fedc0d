"""IsolatedHostsFilter: isolated images only on isolated hosts."""

import numpy as np

from nova_lite.conf import CONF
from nova_lite.scheduler.filters import rules
from nova_lite.scheduler import host_inputs
from nova_lite.scheduler import utils


class IsolatedHostsFilter(rules.InputsFilter):
    """Keeps ``isolated_images`` on ``isolated_hosts`` and, with
    ``restrict_isolated_hosts_to_isolated_images`` (the default), keeps
    other images -- and volume-backed requests, which have no image --
    off them:

    ==================  ===============  =====================
    restrict = True     isolated image   other image / no image
    isolated host       passes           rejected
    other host          rejected         passes
    restrict = False
    isolated host       passes           passes
    other host          rejected         passes
    ==================  ===============  =====================

    With no ``isolated_images``, only the restriction applies (isolated
    hosts are rejected when it is on). Rejection reasons: "isolated host",
    "not an isolated host".
    """

    run_filter_once_per_request = True
    # The image may change on a rebuild: checked then too, as in Nova.
    RUN_ON_REBUILD = True

    def parse_request(self, spec_obj):
        """(whether the image is isolated (None when no image is),
        restrict); the isolated hosts are read by ``reads``."""
        opts = CONF.filter_scheduler
        image_isolated = None
        if opts.isolated_images:
            image = utils.spec_field(spec_obj, 'image')
            image_id = utils.spec_field(image, 'id') if image else None
            image_isolated = image_id in opts.isolated_images
        return (image_isolated,
                opts.restrict_isolated_hosts_to_isolated_images)

    def reads(self, request):
        return (host_inputs.HostNamed(CONF.filter_scheduler.isolated_hosts),)

    def fails(self, request, host_isolated):
        """The table above, for one host's answer to "is isolated" and
        for the population's column of answers alike."""
        image_isolated, restrict = request
        if image_isolated is None:
            return np.logical_and(restrict, host_isolated)
        if restrict:
            return np.not_equal(host_isolated, image_isolated)
        return np.logical_and(image_isolated, np.logical_not(host_isolated))

    def reason(self, request, host_isolated):
        return 'isolated host' if host_isolated else 'not an isolated host'
