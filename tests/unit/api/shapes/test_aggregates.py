"""os-aggregates against tempest.lib's schemas (they change at 2.41)."""

from tests.unit.api import conftest
from tests.unit.api.test_aggregates import store  # noqa: F401

ADMIN = conftest.make_context('admin', 'ops')


def test_every_answer(api, store, assert_shape,  # noqa: F811
                      schemas):
    schemas = schemas('aggregates')
    admin = api(ADMIN)
    assert_shape(admin('POST', '/os-aggregates', {'aggregate': {
        'name': 'rack1', 'availability_zone': 'az1'}}),
        schemas.create_aggregate)
    assert_shape(admin('GET', '/os-aggregates'), schemas.list_aggregates)
    assert_shape(admin('GET', '/os-aggregates/1'), schemas.get_aggregate)
    assert_shape(admin('PUT', '/os-aggregates/1',
                       {'aggregate': {'name': 'rack2'}}),
                 schemas.update_aggregate)
    assert_shape(admin('POST', '/os-aggregates/1/action', {
        'set_metadata': {'metadata': {'k': 'v'}}}),
        schemas.aggregate_set_metadata)
    assert_shape(admin('POST', '/os-aggregates/1/action', {
        'add_host': {'host': 'c1'}}), schemas.aggregate_add_remove_host)
    assert_shape(admin('POST', '/os-aggregates/1/action', {
        'remove_host': {'host': 'c1'}}), schemas.aggregate_add_remove_host)
    assert_shape(admin('DELETE', '/os-aggregates/1'),
                 schemas.delete_aggregate)
