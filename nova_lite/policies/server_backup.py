"""Policy of the ``createBackup`` server action (Nova's rule name and
default: the server's project members, or an administrator)."""

from oslo_policy import policy

from nova_lite.policies import base

CREATE_BACKUP = 'os_compute_api:os-create-backup'

rules = [
    policy.DocumentedRuleDefault(
        name=CREATE_BACKUP, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Create a backup of a server (a snapshot kept in a '
                    'rotation of its type).',
        operations=[{'method': 'POST',
                     'path': '/servers/{server_id}/action (createBackup)'}],
        scope_types=['project']),
]


def list_rules():
    return rules
