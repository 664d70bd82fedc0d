"""os-server-groups against tempest.lib's schemas of each version."""

from nova_lite.api import api_version
from tests.unit.api import conftest
from tests.unit.api.test_server_groups import groups  # noqa: F401


def test_every_answer(api, groups, assert_shape, schemas,  # noqa: F811
                      microversion):
    schemas = schemas('server_groups')
    member = api()
    group = {'name': 'web', 'policies': ['anti-affinity']}
    if api_version.APIVersionRequest(microversion).matches('2.64'):
        group = {'name': 'web', 'policy': 'anti-affinity',
                 'rules': {'max_server_per_host': 1}}
    resp = member('POST', '/os-server-groups', {'server_group': group})
    assert_shape(resp, schemas.create_show_server_group)
    uuid = resp.json['server_group']['id']
    assert_shape(member('GET', '/os-server-groups/' + uuid),
                 schemas.create_show_server_group)
    assert_shape(member('GET', '/os-server-groups'),
                 schemas.list_server_groups)
    assert_shape(api(conftest.make_context('admin', 'ops'))(
        'GET', '/os-server-groups?all_projects=true&limit=1'),
        schemas.list_server_groups)
    assert_shape(member('DELETE', '/os-server-groups/' + uuid),
                 schemas.delete_server_group)
