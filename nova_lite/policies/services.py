"""Policies of /os-services."""

from oslo_policy import policy

from nova_lite.policies import base

SERVICES = 'os_compute_api:os-services:%s'

rules = [
    policy.DocumentedRuleDefault(
        name=SERVICES % 'list', check_str=base.RULE_ADMIN_API,
        description='List the services (daemons) and their state.',
        operations=[{'method': 'GET', 'path': '/os-services'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SERVICES % 'update', check_str=base.RULE_ADMIN_API,
        description='Enable or disable a service (a disabled compute '
                    'gets no new servers), or force it down.',
        operations=[{'method': 'PUT', 'path': '/os-services/enable'},
                    {'method': 'PUT', 'path': '/os-services/disable'},
                    {'method': 'PUT',
                     'path': '/os-services/disable-log-reason'},
                    {'method': 'PUT', 'path': '/os-services/force-down'},
                    {'method': 'PUT', 'path': '/os-services/{service_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SERVICES % 'delete', check_str=base.RULE_ADMIN_API,
        description='Delete a service; a compute service only while its '
                    'host has no servers and no moves in progress.',
        operations=[{'method': 'DELETE',
                     'path': '/os-services/{service_id}'}],
        scope_types=['project']),
]


def list_rules():
    return rules
