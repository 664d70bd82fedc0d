"""Policies of /os-availability-zone."""

from oslo_policy import policy

from nova_lite.policies import base

AVAILABILITY_ZONE = 'os_compute_api:os-availability-zone:%s'

rules = [
    policy.DocumentedRuleDefault(
        name=AVAILABILITY_ZONE % 'list', check_str=base.RULE_ANY,
        description='List availability zones and whether each has an '
                    'enabled compute.',
        operations=[{'method': 'GET', 'path': '/os-availability-zone'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=AVAILABILITY_ZONE % 'detail', check_str=base.RULE_ADMIN_API,
        description='List availability zones with their hosts and '
                    'services, the internal zone included.',
        operations=[{'method': 'GET',
                     'path': '/os-availability-zone/detail'}],
        scope_types=['project']),
]


def list_rules():
    return rules
