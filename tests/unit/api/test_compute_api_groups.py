"""The scheduler hint ``group`` on server create: resolved to the server
group (uuid or name, caller's project), or a 400."""

import pytest

from nova_lite import exception
from tests.unit.api import conftest
from tests.unit.api import fakes
from tests.unit.api import test_compute_api

api = test_compute_api.api
groups = test_compute_api.groups
GROUP_UUID = test_compute_api.GROUP_UUID


def _create(api, hints, context=None):
    api.create(context or conftest.make_context(), fakes.flavor(),
               fakes.image(), 'vm', scheduler_hints=hints)
    return api._conductor.provision_instances.call_args[0][2]


def test_group_by_uuid(api, groups):
    spec = _create(api, {'group': [GROUP_UUID]})
    assert spec.instance_group.policy == 'anti-affinity'
    assert groups == [('uuid', GROUP_UUID)]


def test_no_group_hint_no_group(api, groups):
    spec = _create(api, {'same_host': 'x'})
    assert spec.instance_group is None
    assert groups == []


@pytest.mark.parametrize('hint', [
    'nope', '00000000-0000-4000-8000-000000000000', ['g', 'g2']])
def test_unknown_group_is_a_400(api, groups, hint):
    with pytest.raises(exception.InstanceGroupHintInvalid) as err:
        _create(api, {'group': hint})
    assert err.value.code == 400
    assert not api._conductor.provision_instances.called


def test_another_projects_group_is_refused_except_to_admins(api, groups):
    other = conftest.make_context('eve', 'proj2')
    with pytest.raises(exception.InstanceGroupHintInvalid):
        _create(api, {'group': GROUP_UUID}, other)
    admin = conftest.make_context('admin', 'ops')
    assert _create(api, {'group': GROUP_UUID}, admin).instance_group.uuid \
        == GROUP_UUID
