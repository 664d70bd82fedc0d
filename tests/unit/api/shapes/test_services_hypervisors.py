"""os-services and os-hypervisors against tempest.lib's schemas of each
version."""

from nova_lite import objects
from tests.unit.api import conftest
from tests.unit.api.test_services_hypervisors import nodes  # noqa: F401
from tests.unit.api.test_services_hypervisors import services  # noqa: F401

ADMIN = conftest.make_context('admin', 'ops')


def test_services(api, services, assert_shape, schemas):  # noqa: F811
    svc_schemas = schemas('services')
    assert_shape(api(ADMIN)('GET', '/os-services'),
                 svc_schemas.list_services)
    assert_shape(api(ADMIN)('GET', '/os-services?binary=nova-compute'),
                 svc_schemas.list_services)


def test_hypervisors(api, nodes, assert_shape, schemas):  # noqa: F811
    hyp_schemas = schemas('hypervisors')
    admin = api(ADMIN)
    assert_shape(admin('GET', '/os-hypervisors'),
                 hyp_schemas.list_search_hypervisors)
    assert_shape(admin('GET', '/os-hypervisors/detail'),
                 hyp_schemas.list_hypervisors_detail)
    assert_shape(admin('GET', '/os-hypervisors/7'),
                 hyp_schemas.get_hypervisor)
    assert_shape(admin('GET', '/os-hypervisors/statistics'),
                 hyp_schemas.get_hypervisor_statistics)


def test_hypervisor_search_and_servers(api, nodes,  # noqa: F811
                                       assert_shape, schemas,
                                       monkeypatch):
    hyp_schemas = schemas('hypervisors')
    monkeypatch.setattr(objects.InstanceList, 'get_by_filters', classmethod(
        lambda cls, context, filters, **kw: objects.InstanceList(objects=[
            objects.Instance(id=1, uuid='c2e2a7d4-5b43-4a5e-9a58-'
                                       '0b9c0d1e2f30')])))
    admin = api(ADMIN)
    assert_shape(admin('GET', '/os-hypervisors/cpu1/search'),
                 hyp_schemas.list_search_hypervisors)
    assert_shape(admin('GET', '/os-hypervisors/cpu1/servers'),
                 hyp_schemas.get_hypervisors_servers)
