"""os-simple-tenant-usage against tempest.lib's schemas of each version
(pages from 2.40)."""

from nova_lite.api import api_version
from tests.unit.api import conftest
from tests.unit.api.shapes import conftest as shapes
from tests.unit.api.test_simple_tenant_usage import instances  # noqa: F401
from tests.unit.api.test_simple_tenant_usage import PERIOD

ADMIN = conftest.make_context('admin', 'ops')


def test_every_answer(api, instances, assert_shape,  # noqa: F811
                      schemas, microversion):
    usages = schemas('tenant_usages')
    path = '/os-simple-tenant-usage'
    assert_shape(api(ADMIN)('GET', path + PERIOD), usages.list_tenant_usage)
    assert_shape(api(ADMIN)('GET', path + PERIOD + '&detailed=1'),
                 usages.list_tenant_usage)
    assert_shape(api()('GET', path + '/proj1' + PERIOD),
                 usages.get_tenant_usage)
    if not api_version.APIVersionRequest(microversion).matches('2.40'):
        return
    # A page that is not the last has links, which tempest.lib (with no
    # schema after 2.1) does not describe.
    assert_shape(api(ADMIN)('GET', path + PERIOD + '&detailed=1&limit=2'),
                 shapes.with_links(usages.list_tenant_usage,
                                   'tenant_usages_links'))
    assert_shape(api()('GET', path + '/proj1' + PERIOD + '&limit=1'),
                 shapes.with_links(usages.get_tenant_usage,
                                   'tenant_usage_links'))
