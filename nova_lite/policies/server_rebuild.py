"""Policies of rebuild and evacuate (Nova's rule names)."""

from oslo_policy import policy

from nova_lite.policies import base

REBUILD = 'os_compute_api:servers:rebuild'
EVACUATE = 'os_compute_api:os-evacuate'

_PATH = '/servers/{server_id}/action (%s)'


def _rule(name, check_str, action, description):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'method': 'POST', 'path': _PATH % action}],
        scope_types=['project'])


rules = [
    _rule(REBUILD, base.PROJECT_MEMBER_OR_ADMIN, 'rebuild',
          'Rebuild a server on its host from an image (a new image is '
          'checked by the scheduler\'s rebuild filters first).'),
    _rule(EVACUATE, base.RULE_ADMIN_API, 'evacuate',
          'Evacuate a server from a compute whose service is down to '
          'another host (a named host is checked by the filters).'),
]


def list_rules():
    return rules
