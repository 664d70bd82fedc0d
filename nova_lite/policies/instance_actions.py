"""Policies of /servers/{id}/os-instance-actions (Nova's rule names)."""

from oslo_policy import policy

from nova_lite.policies import base

ACTIONS = 'os_compute_api:os-instance-actions:%s'
_PATH = '/servers/{server_id}/os-instance-actions'

rules = [
    policy.DocumentedRuleDefault(
        name=ACTIONS % 'list', check_str=base.PROJECT_READER_OR_ADMIN,
        description='List the actions of a server.',
        operations=[{'method': 'GET', 'path': _PATH}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=ACTIONS % 'show', check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show an action of a server with its events.',
        operations=[{'method': 'GET', 'path': _PATH + '/{request_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=ACTIONS % 'events', check_str=base.RULE_ADMIN_API,
        description='See the traceback and host of each event of an '
                    'action.',
        operations=[{'method': 'GET', 'path': _PATH + '/{request_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=ACTIONS % 'events:details',
        check_str=base.PROJECT_READER_OR_ADMIN,
        description='See the details of each event of an action (from '
                    'microversion 2.84): why a failed event failed. '
                    'Checked after os-instance-actions:show.',
        operations=[{'method': 'GET', 'path': _PATH + '/{request_id}'}],
        scope_types=['project']),
]


def list_rules():
    return rules
