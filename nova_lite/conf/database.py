"""Database defaults.

The ``[database]`` group itself belongs to oslo.db; nova_lite only sets
defaults: an SQLite file below ``state_path``, and a connection pool sized
for a daemon's RPC threads (oslo.db's five connections would make busy
threads open and close overflow connections on every request).
"""

from oslo_db import options as db_options

from nova_lite.conf import paths

_DEFAULT_CONNECTION = 'sqlite:///' + paths.state_path_def('nova_lite.sqlite')


_POOL_DEFAULTS = {'max_pool_size': 20, 'max_overflow': 40}


def register_opts(conf):
    db_options.set_defaults(conf, connection=_DEFAULT_CONNECTION,
                            **_POOL_DEFAULTS)


def list_opts():
    # Listed through the oslo.db namespace by the sample generator.
    return {}
