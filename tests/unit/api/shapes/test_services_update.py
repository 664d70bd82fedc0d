"""os-services updates against tempest.lib's schemas of each version."""

from nova_lite.api import api_version
from tests.unit.api import conftest
from tests.unit.api.test_services_update import COMPUTE_UUID
from tests.unit.api.test_services_update import env  # noqa: F401

ADMIN = conftest.make_context('admin', 'ops')
BODY = {'host': 'cpu1', 'binary': 'nova-compute'}


def _at_2_53(microversion):
    return api_version.APIVersionRequest(microversion).matches('2.53')


def test_update_by_uuid(api, env, assert_shape, schemas,  # noqa: F811
                        microversion):
    admin = api(ADMIN)
    path = '/os-services/%s' % COMPUTE_UUID
    if not _at_2_53(microversion):
        assert admin('PUT', path, {'status': 'disabled'}).status_int == 404
        return
    for body in ({'status': 'disabled', 'disabled_reason': 'maintenance'},
                 {'status': 'enabled'}, {'forced_down': True},
                 {'status': 'disabled', 'forced_down': False}):
        assert_shape(admin('PUT', path, body),
                     schemas('services').update_service)


def test_enable_disable(api, env, assert_shape, schemas,  # noqa: F811
                        microversion):
    schemas = schemas('services')
    admin = api(ADMIN)
    if _at_2_53(microversion):
        # The actions' path segment is now a service uuid.
        for action in ('disable', 'enable', 'disable-log-reason'):
            assert admin('PUT', '/os-services/' + action,
                         BODY).status_int == 400
        return
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
    elif _at_2_53(microversion):
        assert resp.status_int == 400
    else:
        assert_shape(resp, schemas('services').update_forced_down)
