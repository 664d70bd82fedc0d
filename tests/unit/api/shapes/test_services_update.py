"""os-services updates against tempest.lib's schemas of each version."""

from nova_lite.api import api_version
from tests.unit.api import conftest
from tests.unit.api.test_services_update import env  # noqa: F401

ADMIN = conftest.make_context('admin', 'ops')
BODY = {'host': 'cpu1', 'binary': 'nova-compute'}


def test_enable_disable(api, env, assert_shape, schemas):  # noqa: F811
    schemas = schemas('services')
    admin = api(ADMIN)
    assert_shape(admin('PUT', '/os-services/disable', BODY),
                 schemas.enable_disable_service)
    assert_shape(admin('PUT', '/os-services/enable', BODY),
                 schemas.enable_disable_service)
    assert_shape(admin('PUT', '/os-services/disable-log-reason',
                       dict(BODY, disabled_reason='maintenance')),
                 schemas.disable_log_reason)


def test_force_down(api, env, assert_shape, schemas,  # noqa: F811
                    microversion):
    resp = api(ADMIN)('PUT', '/os-services/force-down',
                      dict(BODY, forced_down=True))
    if not api_version.APIVersionRequest(microversion).matches('2.11'):
        assert resp.status_int == 404
    else:
        assert_shape(resp, schemas('services').update_forced_down)
