"""os-availability-zone against tempest.lib's schemas of each version."""

from tests.unit.api import conftest
from tests.unit.api.test_availability_zone import cloud  # noqa: F401


def test_every_answer(api, cloud, assert_shape, schemas):  # noqa: F811
    zones = schemas('availability_zone')
    assert_shape(api()('GET', '/os-availability-zone'),
                 zones.list_availability_zone_list)
    assert_shape(api(conftest.make_context('admin', 'ops'))(
        'GET', '/os-availability-zone/detail'),
        zones.list_availability_zone_list_detail)
