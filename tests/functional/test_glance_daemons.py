"""nova_lite with a real Glance: ``[image] backend = glance``.

A real Glance API (``glance_fixture``: the ``glance`` package in its own
virtualenv, SQLite, file store, no Keystone) and the four daemons on
RabbitMQ and PostgreSQL, pointed at it by ``[glance] endpoint_override``.
An image created in Glance boots a server, ``GET /images`` shows Glance's
images in Nova's shape, createImage lands in Glance and becomes active
with its data, a missing image is a 400 on boot, and a Glance that is down
makes /images answer 503.
"""

import pytest

from tests.functional import conftest
from tests.functional import deployment
from tests.functional import glance_fixture
from tests.functional import test_moves_daemons as moves

COMPUTES = {'c1': {'node_count': 1, 'vcpus': 8, 'memory_mb': 8192,
                   'local_gb': 100}}
MISSING = '00000000-1111-2222-3333-444444444444'


@pytest.fixture(scope='module')
def glance(module_tmp):
    server = glance_fixture.GlanceServer(module_tmp / 'glance')
    try:
        server.start()
    except Exception:
        server.stop()
        raise
    yield server
    server.stop()


@pytest.fixture(scope='module')
def deploy(request, module_tmp, glance):
    with conftest.deployed(
        module_tmp / 'nova', request, backend='postgresql',
        computes=COMPUTES,
        conf={'DEFAULT': {'shelved_offload_time': 0},
              'image': {'backend': 'glance'},
              'glance': {'endpoint_override': glance.url,
                         'cache_ttl': 5}}) as d:
        status, _, body = d.admin_api.post('/flavors', {'flavor': {
            'name': 'm1', 'id': 'm1', 'ram': 512, 'vcpus': 1, 'disk': 2}})
        assert status == 200, body
        yield d


@pytest.fixture(scope='module')
def glance_image(glance):
    """A public raw image with data, made in Glance itself."""
    status, _, body = glance.api.post('/v2/images', {
        'name': 'cirros-glance', 'disk_format': 'raw',
        'container_format': 'bare', 'visibility': 'public',
        'min_disk': 1, 'min_ram': 128, 'hw_architecture': 'x86_64'})
    assert status == 201, body
    assert glance.upload(body['id'], b'\0' * 4096) == 204
    return body['id']


def _image(deploy, image_id):
    status, _, body = deploy.admin_api.get('/images/%s' % image_id)
    return body['image'] if status == 200 else None


def test_images_proxy_glance_in_nova_shape(deploy, glance_image):
    status, _, body = deploy.api.get('/images/detail')
    assert status == 200, body
    [image] = [i for i in body['images'] if i['id'] == glance_image]
    assert image['name'] == 'cirros-glance'
    assert (image['status'], image['progress']) == ('ACTIVE', 100)
    assert (image['minDisk'], image['minRam']) == (1, 128)
    assert image['metadata'] == {'hw_architecture': 'x86_64'}
    assert image['OS-EXT-IMG-SIZE:size'] == 4096
    assert image['links'][0]['href'].endswith('/images/%s' % glance_image)
    status, _, body = deploy.api.get('/images?minRam=129')
    assert glance_image not in [i['id'] for i in body['images']]
    status, _, body = deploy.api.get('/images/%s' % MISSING)
    assert status == 404, body


def test_boot_from_glance_image_and_snapshot_into_glance(
        deploy, glance, glance_image):
    status, _, body = deploy.api.post('/servers', {'server': {
        'name': 'g1', 'imageRef': glance_image, 'flavorRef': 'm1'}})
    assert status == 202, body
    uuid = body['server']['id']
    server = moves._wait(deploy, uuid, 'ACTIVE')
    assert server['image']['id'] == glance_image
    # From 2.98 the server's image shows its properties, read from Glance
    # with the user's token.
    status, _, body = deploy.api.get('/servers/%s' % uuid, headers={
        'OpenStack-API-Version': 'compute 2.98'})
    assert status == 200, body
    properties = body['server']['image']['properties']
    assert properties['hw_architecture'] == 'x86_64'
    assert (properties['min_ram'], properties['min_disk'],
            properties['disk_format']) == ('128', '1', 'raw')

    status, headers, body = deploy.api.post(
        '/servers/%s/action' % uuid,
        {'createImage': {'name': 'snap', 'metadata': {'purpose': 'test'}}})
    assert status == 202, body
    snap_id = headers['Location'].rsplit('/', 1)[1]
    snap = deployment.wait_for(
        lambda: (_image(deploy, snap_id) or {}).get('status') == 'ACTIVE'
        and _image(deploy, snap_id), timeout=60, message='snapshot ACTIVE')
    assert snap['metadata']['instance_uuid'] == uuid
    assert snap['metadata']['purpose'] == 'test'
    # The snapshot is Glance's, with the data the compute uploaded.
    status, _, in_glance = glance.api.get('/v2/images/%s' % snap_id)
    assert status == 200, in_glance
    assert in_glance['status'] == 'active' and in_glance['size'] > 0
    assert in_glance['min_disk'] == 2

    status, _, body = deploy.api.delete('/images/%s' % snap_id)
    assert status == 204, body
    status, _, body = glance.api.get('/v2/images/%s' % snap_id)
    assert status == 404
    moves._delete(deploy, uuid)


def test_shelve_offload_unshelve_through_glance(deploy, glance,
                                                glance_image):
    """The shelved snapshot is Glance's; the conductor finds it there
    for the unshelve (the user's token crossed RPC), and the unshelve
    deletes it from Glance."""
    status, _, body = deploy.api.post('/servers', {'server': {
        'name': 'g-shelve', 'imageRef': glance_image, 'flavorRef': 'm1'}})
    assert status == 202, body
    uuid = body['server']['id']
    moves._wait(deploy, uuid, 'ACTIVE')
    status, _, body = deploy.api.post('/servers/%s/action' % uuid,
                                      {'shelve': None})
    assert status == 202, body
    moves._wait(deploy, uuid, 'SHELVED_OFFLOADED')
    [row] = deploy.sql('SELECT shelved_image_id FROM instances '
                       'WHERE uuid = :u', u=uuid)
    shelved = row.shelved_image_id
    status, _, in_glance = glance.api.get('/v2/images/%s' % shelved)
    assert status == 200 and in_glance['status'] == 'active', in_glance
    status, _, body = deploy.api.post('/servers/%s/action' % uuid,
                                      {'unshelve': None})
    assert status == 202, body
    moves._wait(deploy, uuid, 'ACTIVE')
    deployment.wait_for(
        lambda: glance.api.get('/v2/images/%s' % shelved)[0] == 404,
        timeout=30, message='shelved image deleted from Glance')
    moves._delete(deploy, uuid)


def test_rebuild_to_another_glance_image(deploy, glance, glance_image):
    status, _, other = glance.api.post('/v2/images', {
        'name': 'other', 'disk_format': 'raw', 'container_format': 'bare',
        'visibility': 'public'})
    assert status == 201, other
    assert glance.upload(other['id'], b'\0' * 512) == 204
    status, _, body = deploy.api.post('/servers', {'server': {
        'name': 'g-rebuild', 'imageRef': glance_image, 'flavorRef': 'm1'}})
    assert status == 202, body
    uuid = body['server']['id']
    moves._wait(deploy, uuid, 'ACTIVE')
    status, _, body = deploy.api.post('/servers/%s/action' % uuid, {
        'rebuild': {'imageRef': other['id']}})
    assert status == 202, body
    server = deployment.wait_for(
        lambda: (moves._server(deploy, uuid)['image']['id'] == other['id']
                 and moves._server(deploy, uuid)['OS-EXT-STS:task_state']
                 is None and moves._server(deploy, uuid)),
        timeout=60, message='rebuilt onto the other image')
    assert server['status'] == 'ACTIVE'
    status, _, body = deploy.api.post('/servers/%s/action' % uuid, {
        'rebuild': {'imageRef': MISSING}})
    assert status == 400, body
    moves._delete(deploy, uuid)


def test_boot_from_missing_image_is_400(deploy):
    status, _, body = deploy.api.post('/servers', {'server': {
        'name': 'g2', 'imageRef': MISSING, 'flavorRef': 'm1'}})
    assert status == 400, body
    assert MISSING in body['badRequest']['message']


def test_glance_down_is_503(deploy, glance):
    # Last: this stops the module's Glance.
    glance.stop()
    status, _, body = deploy.api.get('/images')
    assert status == 503, body
    assert 'image service is unavailable' in \
        body['serviceUnavailable']['message']
    status, _, body = deploy.api.post('/servers', {'server': {
        'name': 'g3', 'imageRef': MISSING, 'flavorRef': 'm1'}})
    assert status == 503, body
