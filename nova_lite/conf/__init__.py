"""Configuration options, one module per option group.

Every option nova_lite defines lives in this package; code elsewhere reads
``nova_lite.conf.CONF`` and never registers options of its own.
"""

from oslo_config import cfg

from nova_lite.conf import api
from nova_lite.conf import availability_zone
from nova_lite.conf import compute
from nova_lite.conf import conductor
from nova_lite.conf import database
from nova_lite.conf import fake_driver
from nova_lite.conf import glance
from nova_lite.conf import image
from nova_lite.conf import messaging
from nova_lite.conf import metrics
from nova_lite.conf import paths
from nova_lite.conf import pci
from nova_lite.conf import quota
from nova_lite.conf import scheduler
from nova_lite.conf import service
from nova_lite.conf import upgrade_levels

CONF = cfg.CONF

_MODULES = (api, availability_zone, compute, conductor, database,
            fake_driver, glance, image, messaging, metrics, paths, pci,
            quota, scheduler, service, upgrade_levels)

for _module in _MODULES:
    _module.register_opts(CONF)
