"""/images: the registry in Nova's image-proxy shape."""

import pytest

from nova_lite.api.handlers import images
from nova_lite import exception
from tests.unit.api import fakes


@pytest.fixture
def registry(monkeypatch):
    state = {'images': [fakes.image(),
                        fakes.image('11111111-2222-3333-4444-555555555555',
                                    name='saving', status='saving')],
             'calls': []}

    def get_all(context, limit=None, marker=None, filters=None):
        state['calls'].append(dict(limit=limit, marker=marker,
                                   filters=filters))
        return state['images'][:limit]

    def get(context, image_id, cached=True):
        for image in state['images']:
            if image['id'] == image_id:
                return image
        raise exception.ImageNotFound(image_id=image_id)
    monkeypatch.setattr(images.image_api, 'get_all', get_all)
    monkeypatch.setattr(images.image_api, 'get', get)
    return state


def test_index(api, registry):
    resp = api()('GET', '/images')
    assert resp.status_int == 200
    assert [set(i) for i in resp.json['images']] == [
        {'id', 'name', 'links'}] * 2


def test_detail_shape(api, registry):
    image = api()('GET', '/images/detail').json['images'][0]
    assert image == {
        'id': fakes.image()['id'], 'name': 'cirros', 'status': 'ACTIVE',
        'progress': 100, 'minDisk': 0, 'minRam': 0,
        'created': '2024-01-31T12:00:00Z', 'updated': '2024-01-31T12:00:00Z',
        'metadata': {'os_distro': 'cirros'},
        'OS-EXT-IMG-SIZE:size': 13167616, 'links': image['links']}


def test_saving_status(api, registry):
    image = api()('GET', '/images/11111111-2222-3333-4444-555555555555'
                  ).json['image']
    assert (image['status'], image['progress']) == ('SAVING', 50)


def test_filters(api, registry):
    api()('GET', '/images/detail?name=cirros&status=active&minRam=64'
                 '&minDisk=1&limit=1&marker=abc')
    [call] = registry['calls']
    assert call == {'limit': 1, 'marker': 'abc', 'filters': {
        'name': 'cirros', 'status': 'active', 'min_ram': 64,
        'min_disk': 1}}


def test_show_unknown_is_404(api, registry):
    resp = api()('GET', '/images/nope')
    assert resp.status_int == 404
    assert resp.json['itemNotFound']['message'] == (
        'Image nope could not be found.')


def test_full_page_has_next_link(api, registry):
    resp = api()('GET', '/images?limit=2')
    assert resp.json['images_links'][0]['href'].endswith(
        '/v2.1/images?limit=2&marker=11111111-2222-3333-4444-555555555555')


def test_glance_down_answers_503_with_why(api, conf):
    """Glance unreachable: a clear 503 fault, never a 500."""
    from nova_lite.image import api as image_api
    from tests.unit.image import test_glance
    conf.config(backend='glance', group='image')
    conf.config(endpoint_override='http://127.0.0.1:%d'
                % test_glance.closed_port(), connect_retries=0,
                group='glance')
    image_api.reset()
    try:
        resp = api()('GET', '/images/detail')
    finally:
        image_api.reset()
    assert resp.status_int == 503
    [fault] = resp.json.values()
    assert fault['code'] == 503
    assert 'The image service is unavailable' in fault['message']


def test_delete(api, monkeypatch):
    deleted = []

    def delete(context, image_id):
        deleted.append(image_id)
        return image_id == fakes.image()['id']
    monkeypatch.setattr(images.image_api, 'delete', delete)
    assert api()('DELETE', '/images/%s' % fakes.image()['id']
                 ).status_int == 204
    resp = api()('DELETE', '/images/11111111-2222-3333-4444-555555555555')
    assert resp.status_int == 404
    assert len(deleted) == 2


def test_snapshot_names_its_server(api, registry):
    server = 'c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30'
    registry['images'][0]['properties']['instance_uuid'] = server
    image = api()('GET', '/images/%s' % fakes.image()['id']).json['image']
    assert image['server']['id'] == server
    assert image['server']['links'][0]['href'].endswith(
        '/servers/%s' % server)
    assert 'server' not in api()('GET', '/images/detail').json['images'][1]


@pytest.mark.parametrize('method, path', [
    ('GET', '/images'), ('GET', '/images/detail'),
    ('GET', '/images/70a599e0-31e7-49b7-b260-868f441e862b'),
    ('DELETE', '/images/70a599e0-31e7-49b7-b260-868f441e862b')])
def test_image_proxy_is_gone_from_2_36(api, at_version, registry, method,
                                       path):
    if method == 'GET':
        assert at_version(api(), '2.35')(method, path).status_int == 200
    resp = at_version(api(), '2.36')(method, path)
    assert resp.status_int == 404
    assert 'could not be found' in resp.text
