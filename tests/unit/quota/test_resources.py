"""Resources, their amounts per server, and the layers of limits."""

import types

from oslo_serialization import jsonutils
import pytest

from nova_lite import exception
from nova_lite import objects
from nova_lite.quota import limits
from nova_lite.quota import resources


def test_a_server_uses_one_instance_its_vcpus_and_ram_plus_video_ram():
    assert resources.instance_deltas(4, 2048, {}) == {
        'instances': 1, 'cores': 4, 'ram': 2048}
    assert resources.instance_deltas(
        4, 2048, {'hw_video:ram_max_mb': '64'}) == {
        'instances': 1, 'cores': 4, 'ram': 2112}


@pytest.mark.parametrize('value', ['lots', '-8', None, ''])
def test_a_bad_video_ram_spec_counts_as_none(value):
    assert resources.video_ram_mb({'hw_video:ram_max_mb': value}) == 0


def test_a_record_accounts_for_what_its_boot_reserved():
    flavor = objects.Flavor(flavorid='1', name='v', memory_mb=1024, vcpus=2,
                            extra_specs={'hw_video:ram_max_mb': '16'})
    record = types.SimpleNamespace(
        vcpus=2, memory_mb=1024,
        flavor=jsonutils.dumps(flavor.obj_to_primitive()))
    assert resources.instance_row_deltas(record) == \
        resources.instance_deltas(2, 1024, flavor.extra_specs) == {
            'instances': 1, 'cores': 2, 'ram': 1040}


def test_sync_groups_lock_and_count_together():
    assert resources.sync_group(['instances']) == ('cores', 'instances',
                                                   'ram')
    assert resources.sync_group(['server_groups']) == ('server_groups',)


def test_every_resource_has_a_configured_default(conf):
    conf.config(group='quota', cores=-1)
    assert limits.config_defaults() == {
        'cores': -1, 'instances': 10, 'metadata_items': 128,
        'ram': 51200, 'server_group_members': 10, 'server_groups': 10,
        'key_pairs': 100}


def test_limits_come_from_user_then_project_then_class_then_config():
    defaults = {'instances': 10, 'cores': 20, 'ram': 100}
    project, user = limits.resolve(
        defaults,
        [{'cores': 30, 'ram': 200}, {'ram': 300}],  # default, own class
        {'instances': 5},
        {'cores': 2})
    assert project == {'instances': 5, 'cores': 30, 'ram': 300}
    assert user == {'instances': 5, 'cores': 2, 'ram': 300}


def test_a_user_without_limits_gets_the_project_s():
    project, user = limits.resolve({'instances': 10}, [], {}, None)
    assert project == user == {'instances': 10}


def test_countable_resources_are_checked_against_the_limit(monkeypatch):
    monkeypatch.setattr(limits, 'get_limits', lambda *a, **k: (
        {'server_group_members': 10}, {'server_group_members': 10}))
    limits.check_countable(None, 'p1', 'u1', 'server_group_members', 9, 1)
    with pytest.raises(exception.OverQuota) as caught:
        limits.check_countable(None, 'p1', 'u1', 'server_group_members',
                               9, 2)
    assert 'already used 9 of 10 server_group_members' in str(caught.value)
    with pytest.raises(exception.QuotaResourceUnknown):
        limits.check_countable(None, 'p1', 'u1', 'instances', 1, 1)
