"""Quota sets, quota class sets and limits against tempest.lib (their
shapes change at 2.36)."""

from tests.unit.api import conftest
from tests.unit.api.test_quota_sets import store  # noqa: F401

ADMIN = conftest.make_context('admin', 'adminproj')


def test_quota_sets(api, store, assert_shape, schemas):  # noqa: F811
    quotas = schemas('quotas')
    admin = api(ADMIN)
    assert_shape(api()('GET', '/os-quota-sets/proj1'), quotas.get_quota_set)
    assert_shape(api()('GET', '/os-quota-sets/proj1/defaults'),
                 quotas.get_quota_set)
    assert_shape(api()('GET', '/os-quota-sets/proj1/detail'),
                 quotas.get_quota_set_details)
    # A user's quotas within the project.
    assert_shape(admin('GET', '/os-quota-sets/proj1?user_id=demo'),
                 quotas.get_quota_set)
    assert_shape(admin('GET', '/os-quota-sets/proj1/detail?user_id=demo'),
                 quotas.get_quota_set_details)
    assert_shape(admin('PUT', '/os-quota-sets/proj1',
                       {'quota_set': {'instances': 7}}),
                 quotas.update_quota_set)
    assert_shape(admin('DELETE', '/os-quota-sets/proj1'),
                 quotas.delete_quota)


def test_quota_class_sets(api, store, assert_shape,  # noqa: F811
                          schemas):
    quota_classes = schemas('quota_classes')
    admin = api(ADMIN)
    assert_shape(admin('GET', '/os-quota-class-sets/default'),
                 quota_classes.get_quota_class_set)
    assert_shape(admin('PUT', '/os-quota-class-sets/default',
                       {'quota_class_set': {'cores': 40}}),
                 quota_classes.update_quota_class_set)


def test_limits(api, store, assert_shape, schemas):  # noqa: F811
    limits = schemas('limits')
    assert_shape(api()('GET', '/limits'), limits.get_limit)
    # What python-novaclient and the openstack client send.
    assert_shape(api()('GET', '/limits?reserved=False'), limits.get_limit)
    assert_shape(api(ADMIN)('GET', '/limits?tenant_id=proj1'),
                 limits.get_limit)
