"""Policy defaults: administrators, project members and readers, and
other projects."""

import os
import pathlib
import subprocess
import sys

from oslo_policy import policy as oslo_policy
import pytest

from nova_lite import context as nl_context
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite import policies
from nova_lite import policy


@pytest.fixture(autouse=True)
def fresh_enforcer(conf):
    CONF([], project='nova_lite', default_config_files=[])
    policy.reset()
    yield
    policy.reset()


def _ctx(roles, project='p1', user='u1'):
    return nl_context.RequestContext(user_id=user, project_id=project,
                                     roles=roles, overwrite=False)


ADMIN = _ctx(['admin', 'member', 'reader'], project='ops')
MEMBER = _ctx(['member', 'reader'])
READER = _ctx(['reader'])
OTHER_MEMBER = _ctx(['member', 'reader'], project='p2')
OWN = {'project_id': 'p1', 'user_id': 'u1'}


@pytest.mark.parametrize('action, allowed', [
    ('os_compute_api:servers:index', {'admin', 'member', 'reader'}),
    ('os_compute_api:servers:show', {'admin', 'member', 'reader'}),
    ('os_compute_api:servers:create', {'admin', 'member'}),
    ('os_compute_api:servers:delete', {'admin', 'member'}),
    ('os_compute_api:servers:index:get_all_tenants', {'admin'}),
    ('os_compute_api:os-extended-server-attributes', {'admin'}),
    ('os_compute_api:os-flavor-manage:create', {'admin'}),
    ('os_compute_api:flavors:index', {'admin', 'member', 'reader', 'other'}),
    ('os_compute_api:images:show', {'admin', 'member', 'reader', 'other'}),
    ('os_compute_api:os-services:list', {'admin'}),
    ('os_compute_api:os-hypervisors:list-detail', {'admin'}),
])
def test_defaults_on_a_project_target(action, allowed):
    callers = {'admin': ADMIN, 'member': MEMBER, 'reader': READER,
               'other': OTHER_MEMBER}
    result = {name for name, ctx in callers.items()
              if policy.authorize(ctx, action, OWN, fatal=False)}
    assert result == allowed


def test_denial_raises_policy_not_authorized():
    with pytest.raises(exception.PolicyNotAuthorized) as info:
        policy.authorize(READER, 'os_compute_api:servers:delete', OWN)
    assert info.value.code == 403
    assert 'os_compute_api:servers:delete' in str(info.value)


def test_context_can_defaults_to_its_own_project():
    assert MEMBER.can('os_compute_api:servers:create')
    assert not MEMBER.can('os_compute_api:servers:create',
                          {'project_id': 'p2'}, fatal=False)


def test_unregistered_action_is_an_error():
    with pytest.raises(oslo_policy.PolicyNotRegistered):
        policy.authorize(ADMIN, 'os_compute_api:nope', OWN)


def test_operator_override(tmp_path, conf):
    rules = tmp_path / 'policy.yaml'
    rules.write_text('"os_compute_api:servers:create": "role:admin"\n')
    policy.init()  # registers [oslo_policy]
    conf.config(group='oslo_policy', policy_file=str(rules))
    policy.reset()
    assert not policy.authorize(MEMBER, 'os_compute_api:servers:create',
                                OWN, fatal=False)
    # Rules not overridden keep their defaults.
    assert policy.authorize(MEMBER, 'os_compute_api:servers:delete', OWN)


def test_an_edited_policy_file_applies_after_the_reload_interval(
        tmp_path, conf, monkeypatch):
    rules = tmp_path / 'policy.yaml'
    rules.write_text('"os_compute_api:servers:create": "role:member"\n')
    policy.init()  # registers [oslo_policy]
    conf.config(group='oslo_policy', policy_file=str(rules))
    policy.reset()
    clock = [1000.0]
    monkeypatch.setattr(policy.time, 'monotonic', lambda: clock[0])
    action = 'os_compute_api:servers:create'
    assert policy.authorize(MEMBER, action, OWN)
    rules.write_text('"os_compute_api:servers:create": "role:admin"\n')
    later = os.stat(rules).st_mtime + 5
    os.utime(rules, (later, later))
    # Not looked for yet: the file's old rule holds ...
    clock[0] += policy.RELOAD_CHECK_INTERVAL / 2
    assert policy.authorize(MEMBER, action, OWN)
    # ... until the interval is over.
    clock[0] += policy.RELOAD_CHECK_INTERVAL
    assert not policy.authorize(MEMBER, action, OWN, fatal=False)
    assert policy.authorize(ADMIN, action, OWN)


def test_every_rule_is_documented_and_unique():
    rules = policies.list_rules()
    names = [r.name for r in rules]
    assert len(names) == len(set(names))
    for rule in rules:
        assert rule.description
        if rule.name.startswith('os_compute_api:'):
            assert rule.operations
            assert rule.scope_types == ['project']


def test_check_is_admin():
    assert policy.check_is_admin(ADMIN)
    assert not policy.check_is_admin(MEMBER)


def test_get_enforcer_for_oslopolicy_tools():
    enforcer = policy.get_enforcer()
    assert 'os_compute_api:servers:create' in enforcer.registered_rules


ROOT = pathlib.Path(__file__).resolve().parents[2]


def _tool(name):
    return os.path.join(os.path.dirname(sys.executable), name)


def test_sample_policy_is_current(tmp_path):
    """etc/nova_lite/policy.yaml.sample is what oslopolicy-sample-generator
    writes for the namespace (regenerate with ``tox -e genpolicy``)."""
    output = tmp_path / 'policy.yaml.sample'
    subprocess.run(
        [_tool('oslopolicy-sample-generator'), '--config-file',
         'etc/nova_lite/nova_lite-policy-generator.conf',
         '--output-file', str(output)],
        check=True, cwd=ROOT, capture_output=True)
    sample = (ROOT / 'etc' / 'nova_lite' / 'policy.yaml.sample').read_text()
    assert output.read_text() == sample, (
        'etc/nova_lite/policy.yaml.sample is stale: run tox -e genpolicy')
    assert '#"os_compute_api:servers:create": ' \
        '"rule:project_member_or_admin"' in sample


def test_policy_generator_merges_an_operators_file(tmp_path):
    """oslopolicy-policy-generator finds the enforcer through the
    oslo.policy.enforcer entry point and shows the effective rules."""
    # Not the default name: the file is found through the config only.
    rules = tmp_path / 'site-rules.yaml'
    rules.write_text('"os_compute_api:servers:create": "role:admin"\n')
    conf = tmp_path / 'nova_lite.conf'
    conf.write_text('[oslo_policy]\npolicy_file = %s\n' % rules)
    result = subprocess.run(
        [_tool('oslopolicy-policy-generator'), '--namespace', 'nova_lite',
         '--config-file', str(conf)],
        check=True, cwd=tmp_path, capture_output=True, text=True)
    assert '"os_compute_api:servers:create": "role:admin"' in result.stdout
    assert ('"os_compute_api:servers:delete": '
            '"rule:project_member_or_admin"') in result.stdout
