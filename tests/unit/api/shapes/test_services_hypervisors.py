"""os-services and os-hypervisors against tempest.lib's schemas of each
version."""

import pytest

from nova_lite.api import api_version
from nova_lite import objects
from tests.unit.api import conftest
from tests.unit.api.shapes import conftest as conftest_shapes
from tests.unit.api.test_services_hypervisors import nodes  # noqa: F401
from tests.unit.api.test_services_hypervisors import services  # noqa: F401

ADMIN = conftest.make_context('admin', 'ops')
NODE_UUID = 'a4b0c0de-0000-4000-8000-000000000007'


def _at(microversion, version):
    return api_version.APIVersionRequest(microversion).matches(version)


@pytest.fixture
def one_server(monkeypatch):
    monkeypatch.setattr(objects.InstanceList, 'get_by_filters', classmethod(
        lambda cls, context, filters, **kw: objects.InstanceList(objects=[
            objects.Instance(id=1, uuid='c2e2a7d4-5b43-4a5e-9a58-'
                                       '0b9c0d1e2f30')])))


def test_services(api, services, assert_shape, schemas):  # noqa: F811
    svc_schemas = schemas('services')
    assert_shape(api(ADMIN)('GET', '/os-services'),
                 svc_schemas.list_services)
    assert_shape(api(ADMIN)('GET', '/os-services?binary=nova-compute'),
                 svc_schemas.list_services)


def test_hypervisors(api, nodes, assert_shape, schemas,  # noqa: F811
                     microversion):
    hyp_schemas = schemas('hypervisors')
    admin = api(ADMIN)
    node_id = NODE_UUID if _at(microversion, '2.53') else '7'
    detail = hyp_schemas.list_hypervisors_detail
    show = hyp_schemas.get_hypervisor
    if _at(microversion, '2.88'):
        detail = conftest_shapes.hypervisor_at_2_88(detail, 'hypervisors',
                                                    '[]')
        show = conftest_shapes.hypervisor_at_2_88(show, 'hypervisor')
    assert_shape(admin('GET', '/os-hypervisors'),
                 hyp_schemas.list_search_hypervisors)
    assert_shape(admin('GET', '/os-hypervisors/detail'), detail)
    if _at(microversion, '2.33'):
        # Pages, with hypervisors_links when not the last.
        assert_shape(admin('GET', '/os-hypervisors?limit=1'),
                     hyp_schemas.list_search_hypervisors)
        assert_shape(admin('GET', '/os-hypervisors/detail?limit=1'), detail)
    assert_shape(admin('GET', '/os-hypervisors/%s' % node_id), show)
    statistics = admin('GET', '/os-hypervisors/statistics')
    if _at(microversion, '2.88'):
        assert statistics.status_int == 404
        return
    assert_shape(statistics, hyp_schemas.get_hypervisor_statistics)


def test_hypervisors_with_servers(api, nodes, one_server,  # noqa: F811
                                  assert_shape, schemas, microversion):
    if not _at(microversion, '2.53'):
        pytest.skip('with_servers and the name pattern are 2.53')
    hyp_schemas = schemas('hypervisors')
    admin = api(ADMIN)
    detail = hyp_schemas.list_hypervisors_detail
    show = hyp_schemas.get_hypervisor
    if _at(microversion, '2.88'):
        detail = conftest_shapes.hypervisor_at_2_88(detail, 'hypervisors',
                                                    '[]')
        show = conftest_shapes.hypervisor_at_2_88(show, 'hypervisor')
    for query in ('with_servers=true',
                  'hypervisor_hostname_pattern=node1&with_servers=1'):
        assert_shape(admin('GET', '/os-hypervisors?' + query),
                     hyp_schemas.list_search_hypervisors)
        assert_shape(admin('GET', '/os-hypervisors/detail?' + query),
                     detail)
    assert_shape(admin('GET', '/os-hypervisors/%s?with_servers=true'
                       % NODE_UUID), show)


def test_hypervisor_search_and_servers(api, nodes,  # noqa: F811
                                       one_server, assert_shape, schemas,
                                       microversion):
    hyp_schemas = schemas('hypervisors')
    admin = api(ADMIN)
    if _at(microversion, '2.53'):
        for path in ('/os-hypervisors/cpu1/search',
                     '/os-hypervisors/cpu1/servers'):
            assert admin('GET', path).status_int == 404
        return
    assert_shape(admin('GET', '/os-hypervisors/cpu1/search'),
                 hyp_schemas.list_search_hypervisors)
    assert_shape(admin('GET', '/os-hypervisors/cpu1/servers'),
                 hyp_schemas.get_hypervisors_servers)
