"""Microversions 2.66 to 2.75 on both sides of each boundary: the
changes-since (2.1) and changes-before (2.66) windows, volume_type
(2.67), the routes of 2.70, server_groups (2.71), locked_reason and the
locked filter (2.73), host and hypervisor_hostname at create (2.74), and
2.75's strict list query, full update and rebuild views, flavor swap and
hypervisors' servers. (2.65's abort is in test_server_live_migrate.py,
2.68's force in test_server_live_migrate.py and test_server_rebuild.py.)
"""

import datetime
import types

import pytest

from nova_lite.api.handlers import servers
from nova_lite import exception
from nova_lite import objects
from tests.unit.api import conftest
from tests.unit.api import fakes
from tests.unit.api.shapes import conftest as shapes
from tests.unit.api.test_keypairs_instance_actions import history  # noqa
from tests.unit.api.test_migrations import listed  # noqa: F401
from tests.unit.api.test_migrations import paged  # noqa: F401
from tests.unit.api.test_servers import _body
from tests.unit.api.test_servers import catalogue  # noqa: F401
from tests.unit.api.test_servers import compute  # noqa: F401

UUID = fakes.instance().uuid
ADMIN = conftest.make_context('admin', 'ops')
GROUP = '8a5f7c1e-2d3b-4e6f-9a0b-1c2d3e4f5a6b'


def _filters(compute):  # noqa: F811
    return compute.get_all_calls[-1]['filters']


# -- changes-since (2.1) and changes-before (2.66) on /servers ----------

@pytest.mark.parametrize('path', ['/servers', '/servers/detail'])
def test_changes_since_filters_servers_at_2_1(api, compute, path):  # noqa
    resp = api()('GET', path + '?changes-since=2026-01-02T03:00:00Z')
    assert resp.status_int == 200, resp.text
    assert _filters(compute)['changes-since'] == datetime.datetime(
        2026, 1, 2, 3, 0)


@pytest.mark.parametrize('value', ['yesterday',
                                   '0001-01-01T00:00:00%2B14:00'])
def test_a_bad_changes_since_is_400(api, compute, value):  # noqa: F811
    resp = api()('GET', '/servers?changes-since=' + value)
    assert resp.status_int == 400
    assert 'changes-since' in resp.text
    assert compute.get_all_calls == []


def test_changes_before_ignored_before_2_66(api, at_version,  # noqa
                                            compute):  # noqa: F811
    resp = at_version(api(), '2.65')(
        'GET', '/servers?changes-before=not-a-date')
    assert resp.status_int == 200, resp.text
    assert 'changes-before' not in _filters(compute)


def test_changes_before_from_2_66(api, at_version, compute):  # noqa
    call = at_version(api(), '2.66')
    resp = call('GET', '/servers/detail?changes-since=2026-01-01T00:00:00Z'
                '&changes-before=2026-01-02T00:00:00Z')
    assert resp.status_int == 200, resp.text
    filters = _filters(compute)
    assert filters['changes-before'] == datetime.datetime(2026, 1, 2)
    assert filters['changes-since'] == datetime.datetime(2026, 1, 1)
    assert call('GET', '/servers?changes-before=soon').status_int == 400


def test_changes_before_earlier_than_since_is_400(api, at_version,
                                                  compute):  # noqa: F811
    resp = at_version(api(), '2.66')(
        'GET', '/servers?changes-since=2026-01-02T00:00:00Z'
        '&changes-before=2026-01-01T00:00:00Z')
    assert resp.status_int == 400
    assert 'changes-since must be less than or equal to changes-before' in (
        resp.json['badRequest']['message'])


def test_a_change_window_lists_deleted_servers(monkeypatch):
    """compute.get_all reads soft-deleted rows for a change window (the
    owner learns of deletes), and not otherwise."""
    seen = []
    monkeypatch.setattr(objects.InstanceList, 'get_by_filters', classmethod(
        lambda cls, context, filters, **kw: seen.append(
            (context.read_deleted, filters)) or []))
    context = conftest.make_context()
    api = servers.compute_api.API
    api.get_all(context, {})
    api.get_all(context, {'changes-since': datetime.datetime(2026, 1, 1)})
    api.get_all(context, {'changes-before': datetime.datetime(2026, 1, 1)})
    assert [read for read, _f in seen] == ['no', 'yes', 'yes']
    assert all(f['project_id'] == 'proj1' for _r, f in seen)


# -- changes-before (2.66) on instance actions and migrations -----------

ACTIONS = '/servers/%s/os-instance-actions' % UUID


def test_instance_actions_changes_before(api, at_version, history):  # noqa
    old = at_version(api(), '2.65')('GET', ACTIONS + '?changes-before=x')
    assert old.status_int == 400   # unknown before 2.66 (strict from 2.58)
    call = at_version(api(), '2.66')
    resp = call('GET', ACTIONS + '?changes-before=2026-01-02T00:00:00Z')
    assert resp.status_int == 200, resp.text
    assert history[-1] == ('changes_before', datetime.datetime(2026, 1, 2))
    bad = call('GET', ACTIONS + '?changes-since=2026-01-03T00:00:00Z'
               '&changes-before=2026-01-02T00:00:00Z')
    assert bad.status_int == 400
    assert call('GET', ACTIONS + '?changes-before=x').status_int == 400


def test_migrations_changes_before(api, at_version, paged):  # noqa: F811
    old = at_version(api(ADMIN), '2.65')(
        'GET', '/os-migrations?changes-before=2026-01-02T00:00:00Z')
    assert old.status_int == 400
    call = at_version(api(ADMIN), '2.66')
    resp = call('GET', '/os-migrations?changes-before=2026-01-02T00:00:00Z')
    assert resp.status_int == 200, resp.text
    assert paged[-1] == ('changes_before', datetime.datetime(2026, 1, 2))
    bad = call('GET', '/os-migrations?changes-since=2026-01-03T00:00:00Z'
               '&changes-before=2026-01-02T00:00:00Z')
    assert bad.status_int == 400


# -- volume_type (2.67) ---------------------------------------------------

def _root(**extra):
    return dict({'uuid': fakes.image()['id'], 'boot_index': 0,
                 'source_type': 'image', 'destination_type': 'local'},
                **extra)


def _create(api, at_version, version, context=None, **server):
    body = _body(networks='none', **server)
    return at_version(api(context), version)('POST', '/servers', body)


def test_volume_type_is_400_before_2_67(api, at_version,
                                        compute):  # noqa: F811
    resp = _create(api, at_version, '2.66',
                   block_device_mapping_v2=[_root(volume_type=None)])
    assert resp.status_int == 400
    assert 'volume_type' in resp.text
    assert compute.created == []


def test_a_named_volume_type_is_not_found_from_2_67(api, at_version,
                                                    compute):  # noqa: F811
    resp = _create(api, at_version, '2.67',
                   block_device_mapping_v2=[_root(volume_type='ssd')])
    assert resp.status_int == 400
    assert resp.json['badRequest']['message'] == (
        'Volume type ssd could not be found.')
    assert compute.created == []


@pytest.mark.parametrize('volume_type', [None, ''])
def test_no_volume_type_is_accepted_from_2_67(  # noqa: F811
        api, at_version, compute, volume_type):  # noqa: F811
    resp = _create(api, at_version, '2.67',
                   block_device_mapping_v2=[_root(volume_type=volume_type)])
    assert resp.status_int == 202, resp.text


# -- 2.70: os-interface and os-volume_attachments are not served -------

@pytest.mark.parametrize('method,suffix', [
    ('GET', '/os-interface'), ('POST', '/os-interface'),
    ('GET', '/os-volume_attachments'), ('POST', '/os-volume_attachments'),
    ('GET', '/os-volume_attachments/%s' % GROUP)])
@pytest.mark.parametrize('version', ['2.69', '2.70'])
def test_interfaces_and_volume_attachments_are_404(  # noqa: F811
        api, at_version, compute, method, suffix, version):  # noqa: F811
    resp = at_version(api(), version)(method, '/servers/%s%s' % (UUID,
                                                                 suffix))
    assert resp.status_int == 404, resp.text


# -- server_groups (2.71) -------------------------------------------------

def test_server_groups_in_show_and_update_from_2_71(
        api, at_version, compute, server_groups_of):  # noqa: F811
    server_groups_of[UUID] = GROUP
    old = at_version(api(), '2.70')
    assert 'server_groups' not in old('GET', '/servers/' + UUID).json[
        'server']
    new = at_version(api(), '2.71')
    shown = new('GET', '/servers/' + UUID)
    assert shown.json['server']['server_groups'] == [GROUP]
    shapes.check_shape(shown, shapes.TempestSchemas(
        'servers', '2.71').get_server)
    updated = new('PUT', '/servers/' + UUID, {'server': {'name': 'n'}})
    assert updated.json['server']['server_groups'] == [GROUP]
    shapes.check_shape(updated, shapes.TempestSchemas(
        'servers', '2.71').update_server)
    details = new('GET', '/servers/detail').json['servers']
    assert not [s for s in details if 'server_groups' in s]


def test_a_server_in_no_group_shows_an_empty_list(api, at_version,
                                                  compute):  # noqa: F811
    shown = at_version(api(), '2.71')('GET', '/servers/' + UUID)
    assert shown.json['server']['server_groups'] == []


# -- locked_reason and the locked filter (2.73) -------------------------

def test_locked_reason_shown_from_2_73(api, at_version,
                                       compute):  # noqa: F811
    compute.instances[UUID].locked = True
    compute.instances[UUID].locked_reason = 'maintenance'
    old = at_version(api(), '2.72')
    assert 'locked_reason' not in old('GET', '/servers/' + UUID).json[
        'server']
    new = at_version(api(), '2.73')
    shown = new('GET', '/servers/' + UUID)
    assert shown.json['server']['locked_reason'] == 'maintenance'
    shapes.check_shape(shown, shapes.TempestSchemas(
        'servers', '2.73').get_server)
    detail = new('GET', '/servers/detail')
    shapes.check_shape(detail, shapes.TempestSchemas(
        'servers', '2.73').list_servers_detail)
    updated = new('PUT', '/servers/' + UUID, {'server': {'name': 'n'}})
    assert updated.json['server']['locked_reason'] == 'maintenance'


def test_locked_filter_from_2_73(api, at_version, compute):  # noqa: F811
    at_version(api(), '2.72')('GET', '/servers?locked=true')
    assert 'locked' not in _filters(compute)
    call = at_version(api(), '2.73')
    assert call('GET', '/servers?locked=true').status_int == 200
    assert _filters(compute)['locked'] is True
    assert call('GET', '/servers/detail?locked=0').status_int == 200
    assert _filters(compute)['locked'] is False
    resp = call('GET', '/servers?locked=maybe')
    assert resp.status_int == 400
    assert "Unrecognized value 'maybe' for 'locked'" in resp.text


def test_locked_sort_key_from_2_73(api, at_version, compute):  # noqa: F811
    assert at_version(api(), '2.72')(
        'GET', '/servers?sort_key=locked').status_int == 400
    assert at_version(api(), '2.73')(
        'GET', '/servers?sort_key=locked').status_int == 200
    assert compute.get_all_calls[-1]['sort_key'] == 'locked'


# -- host and hypervisor_hostname at create (2.74) ----------------------

@pytest.fixture
def nodes(monkeypatch):
    known = {('host1', 'node1'), ('host2', 'node2')}

    def by_host(cls, context, host):
        return [object() for h, _n in known if h == host]

    def by_host_and_node(cls, context, host, node):
        if (host, node) not in known:
            raise exception.ComputeNodeNotFound(node=node)

    def by_node(cls, context, node):
        if node not in {n for _h, n in known}:
            raise exception.ComputeNodeNotFound(node=node)
    monkeypatch.setattr(objects.ComputeNodeList, 'get_all_by_host',
                        classmethod(by_host))
    monkeypatch.setattr(objects.ComputeNode, 'get_by_host_and_nodename',
                        classmethod(by_host_and_node))
    monkeypatch.setattr(objects.ComputeNode, 'get_by_nodename',
                        classmethod(by_node))
    return known


@pytest.mark.parametrize('server', [{'host': 'host1'},
                                    {'hypervisor_hostname': 'node1'}])
def test_requested_destination_is_400_before_2_74(  # noqa: F811
        api, at_version, compute, nodes, server):  # noqa: F811
    resp = _create(api, at_version, '2.73', ADMIN, **server)
    assert resp.status_int == 400
    assert 'was unexpected' in resp.text
    assert compute.created == []


@pytest.mark.parametrize('server,expected', [
    ({'host': 'host1'}, ('host1', None)),
    ({'hypervisor_hostname': 'node2'}, (None, 'node2')),
    ({'host': 'host2', 'hypervisor_hostname': 'node2'}, ('host2', 'node2'))])
def test_requested_destination_from_2_74(  # noqa: F811
        api, at_version, compute, nodes, server, expected):  # noqa: F811
    resp = _create(api, at_version, '2.74', ADMIN, **server)
    assert resp.status_int == 202, resp.text
    [call] = compute.created
    assert call['requested_destination'] == expected
    assert (call['forced_host'], call['forced_node']) == (None, None)


@pytest.mark.parametrize('server,missing', [
    ({'host': 'nowhere'}, 'nowhere'),
    ({'hypervisor_hostname': 'nonode'}, 'nonode'),
    ({'host': 'host1', 'hypervisor_hostname': 'node2'}, 'node2')])
def test_an_unknown_destination_is_400(  # noqa: F811
        api, at_version, compute, nodes, server, missing):  # noqa: F811
    resp = _create(api, at_version, '2.74', ADMIN, **server)
    assert resp.status_int == 400
    assert 'Compute host %s could not be found.' % missing in resp.text
    assert compute.created == []


def test_requested_destination_needs_its_policy(  # noqa: F811
        api, at_version, compute, nodes):  # noqa: F811
    resp = _create(api, at_version, '2.74', host='host1')
    assert resp.status_int == 403
    assert compute.created == []


def test_requested_destination_and_a_forced_host_are_400(
        api, at_version, compute, nodes):  # noqa: F811
    resp = _create(api, at_version, '2.74', ADMIN, host='host1',
                   availability_zone='nova:host2')
    assert resp.status_int == 400
    assert 'mutually exclusive' in resp.text


# -- 2.75 -------------------------------------------------------------------

def test_unknown_list_parameters_ignored_before_2_75(api, at_version,
                                                     compute):  # noqa: F811
    resp = at_version(api(), '2.74')('GET', '/servers?bogus=1')
    assert resp.status_int == 200, resp.text


@pytest.mark.parametrize('path', ['/servers', '/servers/detail'])
def test_unknown_list_parameters_are_400_from_2_75(api, at_version,
                                                   compute,  # noqa: F811
                                                   path):  # noqa: F811
    call = at_version(api(), '2.75')
    resp = call('GET', path + '?bogus=1')
    assert resp.status_int == 400
    assert 'bogus' in resp.text
    assert compute.get_all_calls == []
    # Nova's known filters are still taken (and ignored here).
    assert call('GET', path + '?image=x&flavor=1&reservation_id=r'
                '&all_tenants=0&locked=false').status_int == 200


def test_update_answers_the_view_of_show_from_2_75(api, at_version,
                                                   compute):  # noqa: F811
    old = at_version(api(), '2.74')('PUT', '/servers/' + UUID,
                                    {'server': {'name': 'n'}})
    assert 'OS-EXT-STS:vm_state' not in old.json['server']
    call = at_version(api(), '2.75')
    new = call('PUT', '/servers/' + UUID, {'server': {'name': 'n2'}})
    assert new.status_int == 200, new.text
    shapes.check_shape(new, shapes.TempestSchemas(
        'servers', '2.75').update_server)
    shown = call('GET', '/servers/' + UUID).json['server']
    assert set(new.json['server']) == set(shown)


@pytest.fixture
def flavor_list(monkeypatch):
    flavor = fakes.flavor()
    flavor.swap = 0
    monkeypatch.setattr(objects.Flavor, 'get_by_flavor_id',
                        classmethod(lambda cls, context, flavorid: flavor))
    return flavor


def test_flavor_swap_zero_from_2_75(api, at_version, flavor_list):
    old = at_version(api(), '2.74')('GET', '/flavors/1')
    assert old.json['flavor']['swap'] == ''
    new = at_version(api(), '2.75')('GET', '/flavors/1')
    assert new.json['flavor']['swap'] == 0
    shapes.check_shape(new, shapes.TempestSchemas(
        'flavors', '2.75').create_update_get_flavor_details)


def test_an_administrators_update_answers_the_admin_view_from_2_75(
        api, at_version, compute, monkeypatch):  # noqa: F811
    up = types.SimpleNamespace(host='host1', forced_down=False,
                               disabled=False, is_up=True)
    monkeypatch.setattr(objects.ServiceList, 'get_all', classmethod(
        lambda cls, context, binary=None, host=None: [up]))
    call = at_version(api(ADMIN), '2.75')
    resp = call('PUT', '/servers/' + UUID, {'server': {'name': 'n'}})
    assert resp.status_int == 200, resp.text
    shapes.check_shape(resp, shapes.TempestSchemas(
        'servers', '2.75').update_server)
    server = resp.json['server']
    assert 'OS-EXT-SRV-ATTR:instance_name' in server
    assert 'host_status' in server and server['server_groups'] == []
