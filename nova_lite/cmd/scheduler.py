"""nova-lite-scheduler: chooses and claims hosts."""

import sys

from nova_lite import config
from nova_lite import service


def main():
    config.parse_args(sys.argv[1:])
    server = service.Service('nova-lite-scheduler',
                             db_access=service.DB_DIRECT)
    sys.exit(service.launch(server))
