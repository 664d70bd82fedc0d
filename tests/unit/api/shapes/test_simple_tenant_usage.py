"""os-simple-tenant-usage against tempest.lib's schemas of each version.

From 2.40 a page that is not the last carries ``tenant_usage[s]_links``,
which tempest.lib (with no schema after 2.1) does not describe; the
answers checked here are whole, as tempest's own tests ask for them."""

from tests.unit.api import conftest
from tests.unit.api.test_simple_tenant_usage import instances  # noqa: F401
from tests.unit.api.test_simple_tenant_usage import PERIOD

ADMIN = conftest.make_context('admin', 'ops')


def test_every_answer(api, instances, assert_shape,  # noqa: F811
                      schemas):
    usages = schemas('tenant_usages')
    path = '/os-simple-tenant-usage'
    assert_shape(api(ADMIN)('GET', path + PERIOD), usages.list_tenant_usage)
    assert_shape(api(ADMIN)('GET', path + PERIOD + '&detailed=1'),
                 usages.list_tenant_usage)
    assert_shape(api()('GET', path + '/proj1' + PERIOD),
                 usages.get_tenant_usage)
