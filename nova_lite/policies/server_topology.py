"""Policies of GET /servers/{server_id}/topology (microversion 2.78), with
Nova's rule names and defaults: the server's readers see its NUMA
topology, administrators also where it lies on the host."""

from oslo_policy import policy

from nova_lite.policies import base

INDEX = 'compute:server:topology:index'
HOST_INDEX = 'compute:server:topology:host:index'
_PATH = '/servers/{server_id}/topology'

rules = [
    policy.DocumentedRuleDefault(
        name=INDEX, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show the NUMA topology of a server.',
        operations=[{'method': 'GET', 'path': _PATH}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=HOST_INDEX, check_str=base.RULE_ADMIN_API,
        description='See the host side of a server\'s NUMA topology (the '
                    'host NUMA node and the CPU pinning of each guest '
                    'node). Checked after compute:server:topology:index.',
        operations=[{'method': 'GET', 'path': _PATH}],
        scope_types=['project']),
]


def list_rules():
    return rules
