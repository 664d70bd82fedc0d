"""Policies of /os-hypervisors."""

from oslo_policy import policy

from nova_lite.policies import base

HYPERVISORS = 'os_compute_api:os-hypervisors:%s'

rules = [
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
