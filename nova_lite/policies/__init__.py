"""oslo.policy defaults of nova_lite, one module per resource.

``list_rules`` is the ``oslo.policy.policies`` entry point, so
``oslopolicy-sample-generator --namespace nova_lite`` and
``oslopolicy-policy-generator`` see every rule.
"""

import itertools

from nova_lite.policies import base
from nova_lite.policies import flavors
from nova_lite.policies import hypervisors
from nova_lite.policies import images
from nova_lite.policies import servers
from nova_lite.policies import services


def list_rules():
    return list(itertools.chain(
        base.list_rules(),
        flavors.list_rules(),
        hypervisors.list_rules(),
        images.list_rules(),
        servers.list_rules(),
        services.list_rules(),
    ))
