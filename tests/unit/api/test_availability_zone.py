"""/os-availability-zone over fake services and aggregates."""

import datetime

from oslo_utils import timeutils
import pytest
from tempest.lib.api_schema.response.compute.v2_1 import (
    availability_zone as schemas)

from nova_lite import objects
from tests.unit.api import conftest
from tests.unit.api.shapes import conftest as shapes

ADMIN = conftest.make_context('admin', 'ops')


def _service(id_, host, binary, disabled=False, up=True):
    seen = timeutils.utcnow().replace(tzinfo=None)
    if not up:
        seen -= datetime.timedelta(hours=1)
    return objects.Service(id=id_, host=host, binary=binary,
                           disabled=disabled, disabled_reason=None,
                           forced_down=False, last_seen_up=seen,
                           updated_at=seen, created_at=seen)


@pytest.fixture
def cloud(monkeypatch):
    services = [_service(1, 'ctl', 'nova-lite-conductor'),
                _service(2, 'ctl', 'nova-lite-scheduler'),
                _service(3, 'c1', 'nova-lite-compute'),
                _service(4, 'c2', 'nova-lite-compute', up=False),
                _service(5, 'c3', 'nova-lite-compute', disabled=True)]
    aggregate = objects.Aggregate(id=1, name='rack', hosts=['c2'],
                                  metadata={'availability_zone': 'az1'})
    off = objects.Aggregate(id=2, name='off', hosts=['c3'],
                            metadata={'availability_zone': 'az-off'})
    monkeypatch.setattr(objects.ServiceList, 'get_all', classmethod(
        lambda cls, context, binary=None, host=None:
            objects.ServiceList(objects=services)))
    monkeypatch.setattr(objects.AggregateList, 'get_all', classmethod(
        lambda cls, context: objects.AggregateList(
            objects=[aggregate, off])))
    return services


def test_index_lists_compute_zones(api, cloud):
    resp = api()('GET', '/os-availability-zone')
    assert resp.status_int == 200
    assert resp.json == {'availabilityZoneInfo': [
        {'zoneName': 'az1', 'zoneState': {'available': True},
         'hosts': None},
        {'zoneName': 'nova', 'zoneState': {'available': True},
         'hosts': None},
        {'zoneName': 'az-off', 'zoneState': {'available': False},
         'hosts': None}]}
    shapes.check_shape(resp, schemas.list_availability_zone_list)


def test_detail_has_hosts_and_services(api, cloud):
    resp = api(ADMIN)('GET', '/os-availability-zone/detail')
    assert resp.status_int == 200
    zones = {z['zoneName']: z for z in resp.json['availabilityZoneInfo']}
    assert sorted(zones) == ['az-off', 'az1', 'internal', 'nova']
    assert set(zones['internal']['hosts']['ctl']) == {'nova-conductor',
                                                      'nova-scheduler'}
    c2 = zones['az1']['hosts']['c2']['nova-compute']
    assert (c2['available'], c2['active']) == (False, True)
    assert zones['nova']['hosts']['c1']['nova-compute']['available']
    assert zones['az-off'] == {'zoneName': 'az-off', 'hosts': None,
                               'zoneState': {'available': False}}
    shapes.check_shape(resp, schemas.list_availability_zone_list_detail)


def test_detail_is_for_administrators(api, cloud):
    assert api()('GET', '/os-availability-zone/detail').status_int == 403
