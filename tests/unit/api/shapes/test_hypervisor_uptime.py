"""os-hypervisors/{id}/uptime against tempest.lib's schemas, until 2.88
moved the uptime into show."""

from nova_lite.api import api_version
from tests.unit.api import conftest
from tests.unit.api.test_hypervisor_uptime import world  # noqa: F401

ADMIN = conftest.make_context('admin', 'ops')
NODE_UUID = 'a4b0c0de-0000-4000-8000-000000000007'


def test_uptime(api, world, assert_shape, schemas,  # noqa: F811
                microversion):
    version = api_version.APIVersionRequest(microversion)
    node_id = NODE_UUID if version.matches('2.53') else '7'
    resp = api(ADMIN)('GET', '/os-hypervisors/%s/uptime' % node_id)
    if version.matches('2.88'):
        assert resp.status_int == 404
        return
    assert_shape(resp, schemas('hypervisors').get_hypervisor_uptime)
