"""nova-lite-conductor: database writes, object indirection, builds."""

import sys

from nova_lite import config
from nova_lite.conf import CONF
from nova_lite import service


def main():
    config.parse_args(sys.argv[1:])
    server = service.Service('nova-lite-conductor',
                             db_access=service.DB_DIRECT)
    sys.exit(service.launch(server, count=CONF.conductor.workers))
