"""Policies of /os-quota-sets and /os-quota-class-sets (Nova's names and
defaults: readers see their project's quotas, administrators change
them)."""

from oslo_policy import policy

from nova_lite.policies import base

QUOTA_SETS = 'os_compute_api:os-quota-sets:%s'
QUOTA_CLASS_SETS = 'os_compute_api:os-quota-class-sets:%s'

_SET = '/os-quota-sets/{tenant_id}'
_CLASS_SET = '/os-quota-class-sets/{id}'

rules = [
    policy.DocumentedRuleDefault(
        name=QUOTA_SETS % 'show', check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show the quotas of a project (or of a user in it).',
        operations=[{'method': 'GET', 'path': _SET}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=QUOTA_SETS % 'detail', check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show the quotas of a project (or of a user in it) '
                    'with their usage: in use and reserved.',
        operations=[{'method': 'GET', 'path': _SET + '/detail'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=QUOTA_SETS % 'defaults', check_str=base.RULE_ANY,
        description='Show the default quotas.',
        operations=[{'method': 'GET', 'path': _SET + '/defaults'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=QUOTA_SETS % 'update', check_str=base.RULE_ADMIN_API,
        description='Set the quotas of a project or of a user in it.',
        operations=[{'method': 'PUT', 'path': _SET}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=QUOTA_SETS % 'delete', check_str=base.RULE_ADMIN_API,
        description='Revert the quotas of a project (or of a user in it) '
                    'to the defaults.',
        operations=[{'method': 'DELETE', 'path': _SET}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=QUOTA_CLASS_SETS % 'show', check_str=base.RULE_ADMIN_API,
        description='Show the quotas of a quota class.',
        operations=[{'method': 'GET', 'path': _CLASS_SET}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=QUOTA_CLASS_SETS % 'update', check_str=base.RULE_ADMIN_API,
        description='Set the quotas of a quota class ("default" is what '
                    'projects without their own get).',
        operations=[{'method': 'PUT', 'path': _CLASS_SET}],
        scope_types=['project']),
]


def list_rules():
    return rules
