"""The rules every resource's policies are written in terms of.

Personas, as Nova's defaults since Wallaby: an administrator (role admin,
any project), a project member (role member in the target's project) who
may change things, and a project reader (role reader there) who may only
look. keystone's default roles imply admin -> member -> reader; noauth2
gives them explicitly.

Every rule is project-scoped (``scope_types=['project']``): Nova dropped
system scope from its defaults in 2023.1, so nothing here needs a
system-scoped token. ``tests/unit/api/test_policy_matrix.py`` pins who
may call each route.
"""

from oslo_policy import policy

RULE_ADMIN_API = 'rule:admin_api'
RULE_ANY = '@'
PROJECT_MEMBER = 'rule:project_member_api'
PROJECT_READER = 'rule:project_reader_api'
PROJECT_MEMBER_OR_ADMIN = 'rule:project_member_or_admin'
PROJECT_READER_OR_ADMIN = 'rule:project_reader_or_admin'
# Anyone with a reader role somewhere: for global, read-only catalogues
# (flavors, images) that every project may see.
ANY_READER = 'rule:any_reader'

rules = [
    policy.RuleDefault(
        'context_is_admin', 'role:admin',
        description='Decides what is an administrator.'),
    policy.RuleDefault(
        'admin_api', 'role:admin',
        description='Default rule for administrator-only APIs.'),
    policy.RuleDefault(
        'project_member_api', 'role:member and project_id:%(project_id)s',
        description='A member of the project that owns the target.'),
    policy.RuleDefault(
        'project_reader_api', 'role:reader and project_id:%(project_id)s',
        description='A reader of the project that owns the target.'),
    policy.RuleDefault(
        'project_member_or_admin',
        'rule:project_member_api or rule:context_is_admin',
        description='A project member, or an administrator.'),
    policy.RuleDefault(
        'project_reader_or_admin',
        'rule:project_reader_api or rule:context_is_admin',
        description='A project reader, or an administrator.'),
    policy.RuleDefault(
        'any_reader', 'role:reader or role:admin',
        description='Any user with a reader role in their project.'),
]


def list_rules():
    return rules
