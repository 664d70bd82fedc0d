"""Policies of resize, cold and live migration (Nova's rule names)."""

from oslo_policy import policy

from nova_lite.policies import base

RESIZE = 'os_compute_api:servers:resize'
CONFIRM_RESIZE = 'os_compute_api:servers:confirm_resize'
REVERT_RESIZE = 'os_compute_api:servers:revert_resize'
MIGRATE = 'os_compute_api:os-migrate-server:migrate'
MIGRATE_HOST = 'os_compute_api:os-migrate-server:migrate:host'
MIGRATE_LIVE = 'os_compute_api:os-migrate-server:migrate_live'

_PATH = '/servers/{server_id}/action (%s)'


def _rule(name, check_str, action, description):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'method': 'POST', 'path': _PATH % action}],
        scope_types=['project'])


rules = [
    _rule(RESIZE, base.PROJECT_MEMBER_OR_ADMIN, 'resize',
          'Resize a server to another flavor.'),
    _rule(CONFIRM_RESIZE, base.PROJECT_MEMBER_OR_ADMIN, 'confirmResize',
          'Confirm a resize or cold migration in VERIFY_RESIZE.'),
    _rule(REVERT_RESIZE, base.PROJECT_MEMBER_OR_ADMIN, 'revertResize',
          'Revert a resize or cold migration in VERIFY_RESIZE.'),
    _rule(MIGRATE, base.RULE_ADMIN_API, 'migrate',
          'Cold migrate a server to a host the scheduler chooses.'),
    _rule(MIGRATE_HOST, base.RULE_ADMIN_API, 'migrate',
          'Cold migrate a server to a named host (still checked by the '
          'scheduler\'s filters).'),
    _rule(MIGRATE_LIVE, base.RULE_ADMIN_API, 'os-migrateLive',
          'Live migrate a server to a host the scheduler chooses, or to a '
          'named host (still checked by the scheduler\'s filters).'),
]


def list_rules():
    return rules
