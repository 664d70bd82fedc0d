"""Policies of /limits."""

from oslo_policy import policy

from nova_lite.policies import base

LIMITS = 'os_compute_api:limits'
OTHER_PROJECT = 'os_compute_api:limits:other_project'

rules = [
    policy.DocumentedRuleDefault(
        name=LIMITS, check_str=base.RULE_ANY,
        description='Show the rate and absolute limits of the caller.',
        operations=[{'method': 'GET', 'path': '/limits'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=OTHER_PROJECT, check_str=base.RULE_ADMIN_API,
        description='Show the absolute limits of another project '
                    '(?tenant_id=).',
        operations=[{'method': 'GET', 'path': '/limits'}],
        scope_types=['project']),
]


def list_rules():
    return rules
