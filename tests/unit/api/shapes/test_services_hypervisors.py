"""os-services and os-hypervisors at 2.1 against tempest.lib's schemas."""

from tempest.lib.api_schema.response.compute.v2_1 import (
    hypervisors as hyp_schemas)
from tempest.lib.api_schema.response.compute.v2_1 import (
    services as svc_schemas)

from tests.unit.api import conftest
from tests.unit.api.test_services_hypervisors import nodes  # noqa: F401
from tests.unit.api.test_services_hypervisors import services  # noqa: F401

ADMIN = conftest.make_context('admin', 'ops')


def test_services(api, services, assert_shape):  # noqa: F811
    assert_shape(api(ADMIN)('GET', '/os-services'),
                 svc_schemas.list_services)
    assert_shape(api(ADMIN)('GET', '/os-services?binary=nova-compute'),
                 svc_schemas.list_services)


def test_hypervisors(api, nodes, assert_shape):  # noqa: F811
    admin = api(ADMIN)
    assert_shape(admin('GET', '/os-hypervisors'),
                 hyp_schemas.list_search_hypervisors)
    assert_shape(admin('GET', '/os-hypervisors/detail'),
                 hyp_schemas.list_hypervisors_detail)
    assert_shape(admin('GET', '/os-hypervisors/7'),
                 hyp_schemas.get_hypervisor)
    assert_shape(admin('GET', '/os-hypervisors/statistics'),
                 hyp_schemas.get_hypervisor_statistics)
