"""Entry points for oslo-config-generator.

``list_opts`` gathers every group of ``nova_lite.conf``; the library groups
(``[database]``, ``[oslo_messaging_*]``, ``[keystone_authtoken]``, ...) are
listed by their own namespaces in
``etc/nova_lite/nova_lite-config-generator.conf``.
"""

import collections

from oslo_db import options as db_options

from nova_lite import conf as nl_conf


def list_opts():
    groups = collections.defaultdict(list)
    for module in nl_conf._MODULES:
        for group, opts in module.list_opts().items():
            groups[group].extend(opts)
    return sorted(groups.items(), key=lambda item: str(item[0]))


def set_lib_defaults():
    """Give library options the defaults nova_lite runs with."""
    db_options.set_defaults(nl_conf.CONF,
                            connection=nl_conf.database._DEFAULT_CONNECTION,
                            **nl_conf.database._POOL_DEFAULTS)
    nl_conf.messaging.set_defaults()
