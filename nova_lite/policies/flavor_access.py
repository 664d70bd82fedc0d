"""Policies of flavor access (os-flavor-access and the flavor actions)."""

from oslo_policy import policy

from nova_lite.policies import base

FLAVOR_ACCESS = 'os_compute_api:os-flavor-access'
FLAVOR_ACCESS_ACTION = FLAVOR_ACCESS + ':%s'

rules = [
    policy.DocumentedRuleDefault(
        name=FLAVOR_ACCESS, check_str=base.RULE_ADMIN_API,
        description='List the projects that may use a private flavor.',
        operations=[{'method': 'GET',
                     'path': '/flavors/{flavor_id}/os-flavor-access'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=FLAVOR_ACCESS_ACTION % 'add_tenant_access',
        check_str=base.RULE_ADMIN_API,
        description='Let a project use a private flavor.',
        operations=[{'method': 'POST',
                     'path': '/flavors/{flavor_id}/action '
                             '(addTenantAccess)'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=FLAVOR_ACCESS_ACTION % 'remove_tenant_access',
        check_str=base.RULE_ADMIN_API,
        description='Take a private flavor away from a project.',
        operations=[{'method': 'POST',
                     'path': '/flavors/{flavor_id}/action '
                             '(removeTenantAccess)'}],
        scope_types=['project']),
]


def list_rules():
    return rules
