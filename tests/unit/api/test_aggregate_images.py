"""POST /os-aggregates/{id}/images (2.81): the image pre-cache reaches the
aggregate's computes that are up; bad requests are 400 and cast
nothing."""

import datetime

from oslo_utils import timeutils
import pytest

from nova_lite.api.handlers import aggregate_images
from nova_lite import exception
from nova_lite import objects
from tests.unit.api import conftest

ADMIN = conftest.make_context('admin', 'ops')
IMAGES = ['70a599e0-31e7-49b7-b260-868f441e862b',
          '155d900f-4e14-4e4c-a73d-069cbf4541e6']
PATH = '/os-aggregates/1/images'
UUIDS = {'c1': '0c9c1d6e-0000-4000-8000-000000000001',
         'c2': '0c9c1d6e-0000-4000-8000-000000000002'}


class FakeRPC:
    def __init__(self):
        self.pinned_old = False
        self.casts = []

    def can_send_image_cache(self):
        return not self.pinned_old

    def cache_images(self, context, host, image_ids):
        self.casts.append((host, image_ids))


def _service(host, up=True):
    now = timeutils.utcnow().replace(tzinfo=None)
    seen = now if up else datetime.datetime(2020, 1, 1)
    return objects.Service(id=len(host), uuid=UUIDS[host], host=host,
                           binary='nova-lite-compute', topic='compute',
                           disabled=False, disabled_reason=None,
                           forced_down=False, last_seen_up=seen,
                           created_at=seen, updated_at=None)


@pytest.fixture
def rpc(monkeypatch):
    fake = FakeRPC()
    monkeypatch.setattr(aggregate_images, '_compute_rpcapi', fake)
    aggregate = objects.Aggregate(id=1, uuid=IMAGES[1], name='fast',
                                  hosts=['c1', 'c2', 'c3'], metadata={})

    def get(context, aggregate_id):
        if aggregate_id != 1:
            raise exception.AggregateNotFound(aggregate_id=aggregate_id)
        return aggregate

    def get_image(context, image_id, cached=True):
        if image_id not in IMAGES:
            raise exception.ImageNotFound(image_id=image_id)
        return {'id': image_id}
    monkeypatch.setattr(aggregate_images.aggregates.api, 'get', get)
    monkeypatch.setattr(aggregate_images.image_api, 'get', get_image)
    monkeypatch.setattr(objects.ServiceList, 'get_all', classmethod(
        lambda cls, context, binary=None, host=None: objects.ServiceList(
            objects=[_service('c1'), _service('c2', up=False)])))
    return fake


def _post(api, at_version, body, version='2.81', context=ADMIN,
          path=PATH):
    return at_version(api(context), version)('POST', path, body)


def _body(*image_ids):
    return {'cache': [{'id': image_id} for image_id in image_ids]}


def test_404_before_2_81(api, at_version, rpc):
    assert _post(api, at_version, _body(*IMAGES), '2.80').status_int == 404
    assert rpc.casts == []


def test_the_computes_that_are_up_are_asked(api, at_version, rpc):
    resp = _post(api, at_version, _body(*IMAGES))
    assert resp.status_int == 202, resp.text
    assert resp.body == b''
    # c2 is down and c3 has no compute service: skipped.
    assert rpc.casts == [('c1', IMAGES)]


@pytest.mark.parametrize('body', [
    {}, {'cache': []}, {'cache': [{'id': 'not-a-uuid'}]},
    {'cache': [{'id': IMAGES[0], 'extra': 1}]}, {'cache': {}},
    {'cache': [{'id': IMAGES[0]}], 'more': 1}])
def test_bad_bodies_are_400(api, at_version, rpc, body):
    assert _post(api, at_version, body).status_int == 400
    assert rpc.casts == []


def test_unknown_and_duplicate_images_are_400(api, at_version, rpc):
    unknown = '11111111-2222-3333-4444-555555555555'
    resp = _post(api, at_version, _body(IMAGES[0], unknown))
    assert resp.status_int == 400
    assert unknown in resp.text
    resp = _post(api, at_version, _body(IMAGES[0], IMAGES[0]))
    assert resp.status_int == 400
    assert 'Duplicate' in resp.text
    assert rpc.casts == []


def test_unknown_aggregate_is_404_and_a_bad_id_400(api, at_version, rpc):
    assert _post(api, at_version, _body(IMAGES[0]),
                 path='/os-aggregates/2/images').status_int == 404
    assert _post(api, at_version, _body(IMAGES[0]),
                 path='/os-aggregates/x/images').status_int == 400
    assert rpc.casts == []


def test_pinned_computes_are_skipped(api, at_version, rpc):
    rpc.pinned_old = True
    assert _post(api, at_version, _body(*IMAGES)).status_int == 202
    assert rpc.casts == []


def test_administrators_only(api, at_version, rpc):
    assert _post(api, at_version, _body(*IMAGES),
                 context=conftest.make_context()).status_int == 403
    assert rpc.casts == []
