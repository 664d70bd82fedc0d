"""oslo.policy defaults of nova_lite, one module per resource.

``list_rules`` is the ``oslo.policy.policies`` entry point, so
``oslopolicy-sample-generator --namespace nova_lite`` and
``oslopolicy-policy-generator`` see every rule.
"""

import itertools

from nova_lite.policies import aggregates
from nova_lite.policies import availability_zone
from nova_lite.policies import base
from nova_lite.policies import flavor_access
from nova_lite.policies import flavor_extra_specs
from nova_lite.policies import flavors
from nova_lite.policies import hosts
from nova_lite.policies import hypervisors
from nova_lite.policies import images
from nova_lite.policies import instance_actions
from nova_lite.policies import keypairs
from nova_lite.policies import limits
from nova_lite.policies import migrations
from nova_lite.policies import quota_sets
from nova_lite.policies import server_actions
from nova_lite.policies import server_backup
from nova_lite.policies import server_diagnostics
from nova_lite.policies import server_groups
from nova_lite.policies import server_metadata
from nova_lite.policies import server_moves
from nova_lite.policies import server_network_actions
from nova_lite.policies import server_rebuild
from nova_lite.policies import server_shares
from nova_lite.policies import server_shelve
from nova_lite.policies import servers
from nova_lite.policies import server_tags
from nova_lite.policies import server_topology
from nova_lite.policies import services
from nova_lite.policies import simple_tenant_usage


def list_rules():
    return list(itertools.chain(
        # The rules the others are written in, first in the sample.
        base.list_rules(),
        aggregates.list_rules(),
        availability_zone.list_rules(),
        flavor_access.list_rules(),
        flavor_extra_specs.list_rules(),
        flavors.list_rules(),
        hosts.list_rules(),
        hypervisors.list_rules(),
        images.list_rules(),
        instance_actions.list_rules(),
        keypairs.list_rules(),
        limits.list_rules(),
        migrations.list_rules(),
        quota_sets.list_rules(),
        server_actions.list_rules(),
        server_backup.list_rules(),
        server_diagnostics.list_rules(),
        server_groups.list_rules(),
        server_metadata.list_rules(),
        server_moves.list_rules(),
        server_network_actions.list_rules(),
        server_rebuild.list_rules(),
        server_shares.list_rules(),
        server_shelve.list_rules(),
        server_tags.list_rules(),
        server_topology.list_rules(),
        servers.list_rules(),
        services.list_rules(),
        simple_tenant_usage.list_rules(),
    ))
