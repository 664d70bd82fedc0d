"""os-services updates at 2.1 against tempest.lib's schemas."""

from tempest.lib.api_schema.response.compute.v2_1 import services as schemas

from tests.unit.api import conftest
from tests.unit.api.test_services_update import env  # noqa: F401

ADMIN = conftest.make_context('admin', 'ops')
BODY = {'host': 'cpu1', 'binary': 'nova-compute'}


def test_enable_disable(api, env, assert_shape):  # noqa: F811
    admin = api(ADMIN)
    assert_shape(admin('PUT', '/os-services/disable', BODY),
                 schemas.enable_disable_service)
    assert_shape(admin('PUT', '/os-services/enable', BODY),
                 schemas.enable_disable_service)
    assert_shape(admin('PUT', '/os-services/disable-log-reason',
                       dict(BODY, disabled_reason='maintenance')),
                 schemas.disable_log_reason)
