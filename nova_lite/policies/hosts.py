"""Policies of /os-hosts (deprecated in Nova; kept at 2.1)."""

from oslo_policy import policy

from nova_lite.policies import base

HOSTS = 'os_compute_api:os-hosts:%s'

rules = [
    policy.DocumentedRuleDefault(
        name=HOSTS % 'list', check_str=base.RULE_ADMIN_API,
        description='List the hosts and the services on them.',
        operations=[{'method': 'GET', 'path': '/os-hosts'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=HOSTS % 'show', check_str=base.RULE_ADMIN_API,
        description="Show a compute host's resources and their use.",
        operations=[{'method': 'GET', 'path': '/os-hosts/{host_name}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=HOSTS % 'update', check_str=base.RULE_ADMIN_API,
        description='Enable, disable or set maintenance mode on a host '
                    "(answered 501: nova_lite's computes do not).",
        operations=[{'method': 'PUT', 'path': '/os-hosts/{host_name}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=HOSTS % 'power_action', check_str=base.RULE_ADMIN_API,
        description='Start up, shut down or reboot a host (answered 501).',
        operations=[{'method': 'GET',
                     'path': '/os-hosts/{host_name}/startup'},
                    {'method': 'GET',
                     'path': '/os-hosts/{host_name}/shutdown'},
                    {'method': 'GET',
                     'path': '/os-hosts/{host_name}/reboot'}],
        scope_types=['project']),
]


def list_rules():
    return rules
