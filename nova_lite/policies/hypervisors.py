"""Policies of /os-hypervisors."""

from oslo_policy import policy

from nova_lite.policies import base

HYPERVISORS = 'os_compute_api:os-hypervisors:%s'

rules = [
    policy.DocumentedRuleDefault(
        name=HYPERVISORS % 'uptime', check_str=base.RULE_ADMIN_API,
        description='Show the uptime of a hypervisor.',
        operations=[{'method': 'GET',
                     'path': '/os-hypervisors/{hypervisor_id}/uptime'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=HYPERVISORS % 'search', check_str=base.RULE_ADMIN_API,
        description='Find hypervisors by a part of their name.',
        operations=[{'method': 'GET', 'path':
                     '/os-hypervisors/{hypervisor_hostname_pattern}/search'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=HYPERVISORS % 'servers', check_str=base.RULE_ADMIN_API,
        description='List the servers on the hypervisors a part of whose '
                    'name matches.',
        operations=[{'method': 'GET', 'path':
                     '/os-hypervisors/{hypervisor_hostname_pattern}/'
                     'servers'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=HYPERVISORS % 'list', check_str=base.RULE_ADMIN_API,
        description='List hypervisors.',
        operations=[{'method': 'GET', 'path': '/os-hypervisors'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=HYPERVISORS % 'list-detail', check_str=base.RULE_ADMIN_API,
        description='List hypervisors in detail.',
        operations=[{'method': 'GET', 'path': '/os-hypervisors/detail'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=HYPERVISORS % 'show', check_str=base.RULE_ADMIN_API,
        description='Show a hypervisor.',
        operations=[{'method': 'GET',
                     'path': '/os-hypervisors/{hypervisor_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=HYPERVISORS % 'statistics', check_str=base.RULE_ADMIN_API,
        description='Show the totals of all hypervisors.',
        operations=[{'method': 'GET', 'path': '/os-hypervisors/statistics'}],
        scope_types=['project']),
]


def list_rules():
    return rules
