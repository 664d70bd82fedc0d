"""Database defaults.

The ``[database]`` group itself belongs to oslo.db; nova_lite only sets the
default connection: an SQLite file below ``state_path``.
"""

from oslo_db import options as db_options

from nova_lite.conf import paths

_DEFAULT_CONNECTION = 'sqlite:///' + paths.state_path_def('nova_lite.sqlite')


def register_opts(conf):
    db_options.set_defaults(conf, connection=_DEFAULT_CONNECTION)


def list_opts():
    # Listed through the oslo.db namespace by the sample generator.
    return {}
