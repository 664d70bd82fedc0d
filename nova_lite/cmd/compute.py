"""nova-lite-compute: runs (fake) servers; no database access."""

import sys

from nova_lite import config
from nova_lite import service


def main():
    config.parse_args(sys.argv[1:])
    server = service.Service('nova-lite-compute', db_access=service.DB_NONE)
    sys.exit(service.launch(server))
