"""Policies of /flavors."""

from oslo_policy import policy

from nova_lite.policies import base

FLAVORS = 'os_compute_api:flavors:%s'
FLAVOR_MANAGE = 'os_compute_api:os-flavor-manage:%s'

rules = [
    policy.DocumentedRuleDefault(
        name=FLAVORS % 'index', check_str=base.ANY_READER,
        description='List flavors.',
        operations=[{'method': 'GET', 'path': '/flavors'},
                    {'method': 'GET', 'path': '/flavors/detail'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=FLAVORS % 'show', check_str=base.ANY_READER,
        description='Show a flavor.',
        operations=[{'method': 'GET', 'path': '/flavors/{flavor_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=FLAVORS % 'list_all', check_str=base.RULE_ADMIN_API,
        description='See non-public and disabled flavors '
                    '(is_public=false or none).',
        operations=[{'method': 'GET', 'path': '/flavors'},
                    {'method': 'GET', 'path': '/flavors/detail'},
                    {'method': 'GET', 'path': '/flavors/{flavor_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=FLAVOR_MANAGE % 'create', check_str=base.RULE_ADMIN_API,
        description='Create a flavor.',
        operations=[{'method': 'POST', 'path': '/flavors'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=FLAVOR_MANAGE % 'delete', check_str=base.RULE_ADMIN_API,
        description='Delete a flavor.',
        operations=[{'method': 'DELETE', 'path': '/flavors/{flavor_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=FLAVOR_MANAGE % 'update', check_str=base.RULE_ADMIN_API,
        description="Update a flavor's description (microversion 2.55).",
        operations=[{'method': 'PUT', 'path': '/flavors/{flavor_id}'}],
        scope_types=['project']),
]


def list_rules():
    return rules
