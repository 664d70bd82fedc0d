"""Seed 000's custom filter, ported from Nova with its imports changed
only (``nova.scheduler`` became ``nova_lite.scheduler``)."""

from oslo_log import log as logging
from nova_lite.scheduler import filters

LOG = logging.getLogger(__name__)


class AcmeFilter(filters.BaseHostFilter):

    def host_passes(self, host_state, spec_obj):
        extra_spec = spec_obj.flavor.extra_specs.get('acme:foo')
        LOG.info("Extra spec value was '%s'", extra_spec)

        # do meaningful stuff here...

        return True
