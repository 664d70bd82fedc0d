"""Policies of /servers."""

from oslo_policy import policy

from nova_lite.policies import base

SERVERS = 'os_compute_api:servers:%s'
# Nova's name (2.74): host and hypervisor_hostname at create.
REQUESTED_DESTINATION = 'compute:servers:create:requested_destination'
EXTENDED_ATTRIBUTES = 'os_compute_api:os-extended-server-attributes'

rules = [
    policy.DocumentedRuleDefault(
        name=SERVERS % 'index', check_str=base.PROJECT_READER_OR_ADMIN,
        description='List the servers of the caller\'s project.',
        operations=[{'method': 'GET', 'path': '/servers'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SERVERS % 'detail', check_str=base.PROJECT_READER_OR_ADMIN,
        description='List the servers of the caller\'s project, in detail.',
        operations=[{'method': 'GET', 'path': '/servers/detail'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SERVERS % 'index:get_all_tenants', check_str=base.RULE_ADMIN_API,
        description='List the servers of every project (all_tenants).',
        operations=[{'method': 'GET', 'path': '/servers'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SERVERS % 'detail:get_all_tenants',
        check_str=base.RULE_ADMIN_API,
        description='List the servers of every project in detail '
                    '(all_tenants).',
        operations=[{'method': 'GET', 'path': '/servers/detail'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SERVERS % 'allow_all_filters', check_str=base.RULE_ADMIN_API,
        description='Filter and sort servers by administrator-only fields '
                    '(host, node).',
        operations=[{'method': 'GET', 'path': '/servers'},
                    {'method': 'GET', 'path': '/servers/detail'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SERVERS % 'show', check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show a server.',
        operations=[{'method': 'GET', 'path': '/servers/{server_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SERVERS % 'show:host_status', check_str=base.RULE_ADMIN_API,
        description='Show the state of a server\'s compute (host_status, '
                    'microversion 2.16) in show and list detail.',
        operations=[{'method': 'GET', 'path': '/servers/{server_id}'},
                    {'method': 'GET', 'path': '/servers/detail'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SERVERS % 'create', check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Create servers.',
        operations=[{'method': 'POST', 'path': '/servers'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SERVERS % 'create:forced_host', check_str=base.RULE_ADMIN_API,
        description='Create a server on a given host or node, bypassing the '
                    'scheduler\'s filters (availability_zone "zone:host" or '
                    '"zone:host:node").',
        operations=[{'method': 'POST', 'path': '/servers'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=REQUESTED_DESTINATION, check_str=base.RULE_ADMIN_API,
        description='Create a server on a given host and/or node '
                    '(microversion 2.74 host and hypervisor_hostname), '
                    'still checked by the scheduler\'s filters.',
        operations=[{'method': 'POST', 'path': '/servers'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SERVERS % 'update', check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Rename a server or change its description.',
        operations=[{'method': 'PUT', 'path': '/servers/{server_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SERVERS % 'delete', check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Delete a server.',
        operations=[{'method': 'DELETE', 'path': '/servers/{server_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=EXTENDED_ATTRIBUTES, check_str=base.RULE_ADMIN_API,
        description='Show a server\'s host, hypervisor hostname and '
                    'instance name (the OS-EXT-SRV-ATTR fields) and its '
                    'fault details.',
        operations=[{'method': 'GET', 'path': '/servers/{server_id}'},
                    {'method': 'GET', 'path': '/servers/detail'}],
        scope_types=['project']),
]


def list_rules():
    return rules
