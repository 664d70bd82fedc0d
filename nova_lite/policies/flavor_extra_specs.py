"""Policies of /flavors/{flavor_id}/os-extra_specs.

Reading is checked against the caller's own project (flavors belong to
no project), so any reader or administrator may; writing is for
administrators, as in Nova.
"""

from oslo_policy import policy

from nova_lite.policies import base

EXTRA_SPECS = 'os_compute_api:os-flavor-extra-specs:%s'
_COLLECTION = '/flavors/{flavor_id}/os-extra_specs'
_ITEM = _COLLECTION + '/{key}'

rules = [
    policy.DocumentedRuleDefault(
        name=EXTRA_SPECS % 'index',
        check_str=base.PROJECT_READER_OR_ADMIN,
        description='List a flavor\'s extra specs.',
        operations=[{'method': 'GET', 'path': _COLLECTION}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=EXTRA_SPECS % 'show',
        check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show one extra spec of a flavor.',
        operations=[{'method': 'GET', 'path': _ITEM}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=EXTRA_SPECS % 'create', check_str=base.RULE_ADMIN_API,
        description='Add or replace extra specs of a flavor.',
        operations=[{'method': 'POST', 'path': _COLLECTION}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=EXTRA_SPECS % 'update', check_str=base.RULE_ADMIN_API,
        description='Set one extra spec of a flavor.',
        operations=[{'method': 'PUT', 'path': _ITEM}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=EXTRA_SPECS % 'delete', check_str=base.RULE_ADMIN_API,
        description='Remove one extra spec of a flavor.',
        operations=[{'method': 'DELETE', 'path': _ITEM}],
        scope_types=['project']),
]


def list_rules():
    return rules
