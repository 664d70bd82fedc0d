"""Policies of /os-simple-tenant-usage."""

from oslo_policy import policy

from nova_lite.policies import base

SIMPLE_TENANT_USAGE = 'os_compute_api:os-simple-tenant-usage:%s'

rules = [
    policy.DocumentedRuleDefault(
        name=SIMPLE_TENANT_USAGE % 'list', check_str=base.RULE_ADMIN_API,
        description='Show the usage of every project over a period.',
        operations=[{'method': 'GET', 'path': '/os-simple-tenant-usage'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SIMPLE_TENANT_USAGE % 'show',
        check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show one project\'s usage over a period.',
        operations=[{'method': 'GET',
                     'path': '/os-simple-tenant-usage/{tenant_id}'}],
        scope_types=['project']),
]


def list_rules():
    return rules
