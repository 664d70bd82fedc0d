"""IsolatedHostsFilter: isolated images only on isolated hosts."""

import numpy as np

from nova_lite.conf import CONF
from nova_lite.scheduler import filters
from nova_lite.scheduler import utils


class IsolatedHostsFilter(filters.BaseHostFilter):
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

    @staticmethod
    def _request(spec_obj):
        """(isolated hosts, whether the image is isolated (None when no
        image is), restrict)."""
        opts = CONF.filter_scheduler
        image_isolated = None
        if opts.isolated_images:
            image = utils.spec_field(spec_obj, 'image')
            image_id = utils.spec_field(image, 'id') if image else None
            image_isolated = image_id in opts.isolated_images
        return (opts.isolated_hosts, image_isolated,
                opts.restrict_isolated_hosts_to_isolated_images)

    @staticmethod
    def _fails(host_isolated, image_isolated, restrict):
        """The rule, for one host's answer to "is isolated" and for the
        population's column of answers alike (the table above)."""
        if image_isolated is None:
            return np.logical_and(restrict, host_isolated)
        if restrict:
            return np.not_equal(host_isolated, image_isolated)
        return np.logical_and(image_isolated, np.logical_not(host_isolated))

    def host_passes(self, host_state, spec_obj):
        return self.rejection_reason(host_state, spec_obj) is None

    def filter_population(self, population, spec_obj, among=None):
        hosts, image_isolated, restrict = self._request(spec_obj)
        return np.logical_not(self._fails(population.hosts_named(hosts),
                                          image_isolated, restrict))

    def rejection_reason(self, host_state, spec_obj):
        hosts, image_isolated, restrict = self._request(spec_obj)
        host_isolated = host_state.host in hosts
        if not self._fails(host_isolated, image_isolated, restrict):
            return None
        return 'isolated host' if host_isolated else 'not an isolated host'
