"""Configuration options, one module per option group.

Every option nova_lite defines lives in this package; code elsewhere reads
``nova_lite.conf.CONF`` and never registers options of its own.
"""

from oslo_config import cfg

from nova_lite.conf import api
from nova_lite.conf import compute
from nova_lite.conf import conductor
from nova_lite.conf import database
from nova_lite.conf import fake_driver
from nova_lite.conf import paths
from nova_lite.conf import scheduler
from nova_lite.conf import service
from nova_lite.conf import upgrade_levels

CONF = cfg.CONF

_MODULES = (api, compute, conductor, database, fake_driver, paths,
            scheduler, service, upgrade_levels)

for _module in _MODULES:
    _module.register_opts(CONF)
