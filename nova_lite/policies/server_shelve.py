"""Policies of snapshots and shelving (Nova's rule names)."""

from oslo_policy import policy

from nova_lite.policies import base

CREATE_IMAGE = 'os_compute_api:servers:create_image'
SHELVE = 'os_compute_api:os-shelve:shelve'
SHELVE_OFFLOAD = 'os_compute_api:os-shelve:shelve_offload'
UNSHELVE = 'os_compute_api:os-shelve:unshelve'
UNSHELVE_TO_HOST = 'os_compute_api:os-shelve:unshelve_to_host'

_PATH = '/servers/{server_id}/action (%s)'


def _rule(name, check_str, action, description):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'method': 'POST', 'path': _PATH % action}],
        scope_types=['project'])


rules = [
    _rule(CREATE_IMAGE, base.PROJECT_MEMBER_OR_ADMIN, 'createImage',
          'Create an image (snapshot) from a server.'),
    _rule(SHELVE, base.PROJECT_MEMBER_OR_ADMIN, 'shelve',
          'Shelve a server: snapshot it and power it off.'),
    _rule(SHELVE_OFFLOAD, base.RULE_ADMIN_API, 'shelveOffload',
          'Offload a shelved server from its host now.'),
    _rule(UNSHELVE, base.PROJECT_MEMBER_OR_ADMIN, 'unshelve',
          'Unshelve (restore) a shelved server.'),
    _rule(UNSHELVE_TO_HOST, base.RULE_ADMIN_API, 'unshelve',
          'Unshelve an offloaded server to a named host (microversion '
          '2.91; still checked by the scheduler\'s filters).'),
]


def list_rules():
    return rules
