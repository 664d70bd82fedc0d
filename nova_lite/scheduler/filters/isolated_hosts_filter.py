"""IsolatedHostsFilter: isolated images only on isolated hosts."""

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

    def host_passes(self, host_state, spec_obj):
        opts = CONF.filter_scheduler
        restrict = opts.restrict_isolated_hosts_to_isolated_images
        host_isolated = host_state.host in opts.isolated_hosts
        if not opts.isolated_images:
            return not (restrict and host_isolated)
        image = utils.spec_field(spec_obj, 'image')
        image_id = utils.spec_field(image, 'id') if image else None
        image_isolated = image_id in opts.isolated_images
        if restrict:
            return image_isolated == host_isolated
        return host_isolated or not image_isolated

    def filter_population(self, population, spec_obj):
        opts = CONF.filter_scheduler
        restrict = opts.restrict_isolated_hosts_to_isolated_images
        host_isolated = population.hosts_named(opts.isolated_hosts)
        if not opts.isolated_images:
            return ~host_isolated if restrict else True
        image = utils.spec_field(spec_obj, 'image')
        image_id = utils.spec_field(image, 'id') if image else None
        image_isolated = image_id in opts.isolated_images
        if restrict:
            return host_isolated if image_isolated else ~host_isolated
        return host_isolated if image_isolated else True

    def rejection_reason(self, host_state, spec_obj):
        if self.host_passes(host_state, spec_obj):
            return None
        if host_state.host in CONF.filter_scheduler.isolated_hosts:
            return 'isolated host'
        return 'not an isolated host'
