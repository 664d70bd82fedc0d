"""Policy of GET /servers/{server_id}/diagnostics (Nova's rule name and
default: administrators only, the data being the hypervisor's)."""

from oslo_policy import policy

from nova_lite.policies import base

BASE = 'os_compute_api:os-server-diagnostics'

rules = [
    policy.DocumentedRuleDefault(
        name=BASE, check_str=base.RULE_ADMIN_API,
        description='Show the diagnostics of a server (its driver\'s own '
                    'counters, or from microversion 2.48 Nova\'s '
                    'standardized fields).',
        operations=[{'method': 'GET',
                     'path': '/servers/{server_id}/diagnostics'}],
        scope_types=['project']),
]


def list_rules():
    return rules
