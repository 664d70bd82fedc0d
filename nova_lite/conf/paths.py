"""Where nova_lite keeps its local state."""

import os

from oslo_config import cfg

path_opts = [
    cfg.StrOpt('state_path',
               default=os.path.join(os.path.expanduser('~'), '.nova_lite'),
               sample_default='$HOME/.nova_lite',
               help='Directory for local state: the embedded SQLite '
                    'database of the all-in-one run, and the stable node '
                    'identities of each fake compute. Created on first use.'),
]


def state_path_def(*parts):
    """Return an option default that expands below ``state_path``."""
    return os.path.join('$state_path', *parts)


def register_opts(conf):
    conf.register_opts(path_opts)


def list_opts():
    return {'DEFAULT': path_opts}
