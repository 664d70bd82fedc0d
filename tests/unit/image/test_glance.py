"""The glance backend: Glance's documents as image dicts, the per-token
cache, and every failure of Glance as a nova_lite error (503, not 500)."""

import datetime
import json
import socket

import pytest

from nova_lite.api.handlers import images
from nova_lite.api import wsgi
from nova_lite import conf
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite.image import glance
from nova_lite.image import glance_client
from nova_lite.image import registry

CONF = conf.CONF
ID = '70a599e0-31e7-49b7-b260-868f441e862b'


def _doc(**kw):
    doc = {'id': ID, 'name': 'cirros', 'status': 'active',
           'disk_format': 'qcow2', 'container_format': 'bare',
           'size': 1024, 'virtual_size': None, 'checksum': 'x',
           'min_disk': 1, 'min_ram': 64, 'owner': 'proj1',
           'visibility': 'public', 'protected': False, 'os_hidden': False,
           'tags': [], 'hw_architecture': 'x86_64', 'os_distro': 'cirros',
           'self': '/v2/images/%s' % ID, 'file': '/x', 'schema': '/s',
           'created_at': '2024-01-31T12:00:00Z',
           'updated_at': '2024-01-31T12:05:00Z'}
    doc.update(kw)
    return doc


class _Resp:
    def __init__(self, status, body=None, text=''):
        self.status_code = status
        self._body = body
        self.text = text or json.dumps(body)

    def json(self):
        return self._body


class FakeClient:
    """Answers from a table; records every call."""

    def __init__(self, answers):
        self.answers = answers
        self.calls = []

    def request(self, context, method, url, **kwargs):
        self.calls.append((method, url, kwargs))
        answer = self.answers[(method, url)]
        if isinstance(answer, Exception):
            raise answer
        return answer.pop(0) if isinstance(answer, list) else answer


class Clock:
    now = 100.0

    def __call__(self):
        return self.now


def _req():
    req = wsgi.Request.blank('/v2.1/images')
    req.environ[wsgi.CONTEXT_KEY] = _ctx()
    return req


def closed_port():
    """A local port nobody listens on: Glance is down."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def _ctx(token='tok-1'):
    return nl_context.RequestContext(user_id='u', project_id='proj1',
                                     auth_token=token)


def test_from_glance_splits_core_attributes_from_properties():
    image = glance.from_glance(_doc())
    assert image['properties'] == {'hw_architecture': 'x86_64',
                                   'os_distro': 'cirros'}
    assert (image['min_disk'], image['min_ram'], image['size']) == (1, 64,
                                                                     1024)
    assert image['created_at'] == datetime.datetime(2024, 1, 31, 12, 0)
    assert image['updated_at'].tzinfo is None


@pytest.mark.parametrize('status, shown', [
    ('active', ('ACTIVE', 100)), ('queued', ('SAVING', 25)),
    ('saving', ('SAVING', 50)), ('killed', ('ERROR', 0)),
    ('deleted', ('DELETED', 0)), ('pending_delete', ('DELETED', 0)),
    ('deactivated', ('UNKNOWN', 0)), ('uploading', ('UNKNOWN', 0)),
])
def test_glance_status_in_nova_shape(status, shown):
    image = glance.from_glance(_doc(status=status, size=None))
    view = images.detail_view(_req(), image)
    assert (view['status'], view['progress']) == shown
    assert view['OS-EXT-IMG-SIZE:size'] == 0
    assert (view['minDisk'], view['minRam']) == (1, 64)
    assert view['metadata']['os_distro'] == 'cirros'
    assert view['updated'] == '2024-01-31T12:05:00Z'


def test_get_is_cached_per_token_for_ttl(conf):
    conf.config(cache_ttl=10, group='glance')
    clock = Clock()
    client = FakeClient({('GET', '/v2/images/%s' % ID): _Resp(200,
                                                                _doc())})
    backend = glance.GlanceBackend(client=client, clock=clock)
    backend.get(_ctx(), ID)
    backend.get(_ctx(), ID)
    assert len(client.calls) == 1
    backend.get(_ctx('tok-2'), ID)
    assert len(client.calls) == 2, 'another token must ask Glance itself'
    clock.now += 11
    backend.get(_ctx(), ID)
    assert len(client.calls) == 3, 'an expired entry must be read again'


def test_a_cached_image_is_a_copy():
    client = FakeClient({('GET', '/v2/images/%s' % ID): _Resp(200,
                                                                _doc())})
    backend = glance.GlanceBackend(client=client)
    backend.get(_ctx(), ID)['properties']['x'] = 'y'
    assert 'x' not in backend.get(_ctx(), ID)['properties']


def test_delete_forgets_the_cached_image():
    client = FakeClient({
        ('GET', '/v2/images/%s' % ID): [_Resp(200, _doc()),
                                         _Resp(404, text='gone')],
        ('DELETE', '/v2/images/%s' % ID): _Resp(204, text='')})
    backend = glance.GlanceBackend(client=client)
    backend.get(_ctx(), ID)
    assert backend.delete(_ctx(), ID) is True
    with pytest.raises(exception.ImageNotFound):
        backend.get(_ctx(), ID)


@pytest.mark.parametrize('status', [400, 403, 404])
def test_get_unknown_image_is_not_found(status):
    client = FakeClient({('GET', '/v2/images/nope'): _Resp(status,
                                                           text='no')})
    with pytest.raises(exception.ImageNotFound):
        glance.GlanceBackend(client=client).get(_ctx(), 'nope')


def test_get_all_filters_min_sizes_itself_and_follows_next():
    first = {'images': [_doc(id='a', min_disk=0), _doc(id='b')],
             'next': '/v2/images?marker=b'}
    second = {'images': [_doc(id='c', min_disk=5)]}
    client = FakeClient({('GET', '/v2/images'): _Resp(200, first),
                         ('GET', '/v2/images?marker=b'): _Resp(200, second)})
    found = glance.GlanceBackend(client=client).get_all(
        _ctx(), limit=2, filters={'min_disk': 1, 'name': 'cirros'})
    assert [i['id'] for i in found] == ['b', 'c']
    params = client.calls[0][2]['params']
    assert params['name'] == 'cirros' and 'min_disk' not in params
    assert (params['sort_key'], params['sort_dir']) == ('created_at',
                                                        'desc')


def test_get_all_bad_marker_is_marker_not_found():
    client = FakeClient({('GET', '/v2/images'): _Resp(400, text='bad')})
    with pytest.raises(exception.MarkerNotFound):
        glance.GlanceBackend(client=client).get_all(_ctx(), marker='x')


def test_create_sends_properties_as_attributes():
    client = FakeClient({('POST', '/v2/images'): _Resp(
        201, _doc(status='queued', visibility='private'))})
    image = glance.GlanceBackend(client=client).create(
        _ctx(), 'snap', properties={'instance_uuid': 'i-1'}, min_disk=1,
        min_ram=64, visibility='private', owner='proj1', status='queued')
    body = client.calls[0][2]['json']
    assert body['instance_uuid'] == 'i-1' and body['name'] == 'snap'
    assert 'owner' not in body and 'status' not in body
    assert image['status'] == 'queued'


def test_active_uploads_the_snapshot_data():
    url = '/v2/images/%s' % ID
    client = FakeClient({('PUT', url + '/file'): _Resp(204, text=''),
                         ('GET', url): _Resp(200, _doc(size=70000))})
    image = glance.GlanceBackend(client=client).set_status(
        _ctx(), ID, 'active', size=70000)
    sent = client.calls[0][2]['data']
    assert sent == b'\0' * 70000
    assert image['status'] == 'active'


def test_killed_deletes_the_image():
    url = '/v2/images/%s' % ID
    client = FakeClient({('GET', url): _Resp(200, _doc(status='queued')),
                         ('DELETE', url): _Resp(204, text='')})
    image = glance.GlanceBackend(client=client).set_status(_ctx(), ID,
                                                           'killed')
    assert image['status'] == 'killed'
    assert ('DELETE', url, {}) in client.calls


def test_glance_down_is_image_service_unavailable(conf):
    conf.config(backend='glance', group='image')
    conf.config(endpoint_override='http://127.0.0.1:%d' % closed_port(),
                connect_retries=0, timeout=2, group='glance')
    image_api.reset()
    try:
        with pytest.raises(exception.ImageServiceUnavailable) as err:
            image_api.get(_ctx(), ID)
    finally:
        image_api.reset()
    assert 'cannot reach it' in str(err.value)
    assert err.value.code == 503


def test_no_endpoint_and_none_in_catalog_is_503():
    client = glance_client.GlanceClient()
    with pytest.raises(exception.ImageServiceUnavailable) as err:
        client.request(_ctx(), 'GET', '/v2/images')
    assert 'service catalog' in str(err.value)


def test_catalog_lookup_picks_the_interface_and_region():
    ctx = _ctx()
    # The v2 shape keystonemiddleware puts in X-Service-Catalog.
    ctx.service_catalog = [{'type': 'image', 'name': 'glance', 'endpoints': [
        {'region': 'R1', 'publicURL': 'http://pub:9292',
         'internalURL': 'http://int:9292'},
        {'region': 'R2', 'internalURL': 'http://r2:9292'},
    ]}]
    auth = glance_client.ContextAuth(ctx)
    assert auth.get_endpoint(None, service_type='image',
                             interface=['internal', 'public'],
                             region_name='R2') == 'http://r2:9292'
    assert auth.get_endpoint(None, service_type='image',
                             interface='public',
                             region_name='R1') == 'http://pub:9292'
    assert auth.get_token(None) == 'tok-1'


def test_the_image_catalog_travels_over_rpc():
    ctx = _ctx()
    ctx.service_catalog = [{'type': 'image', 'endpoints': []},
                           {'type': 'volumev3', 'endpoints': []}]
    again = nl_context.RequestContext.from_dict(ctx.to_dict())
    assert again.service_catalog == [{'type': 'image', 'endpoints': []}]
    assert again.auth_token == 'tok-1'


def test_backend_is_chosen_by_config(conf):
    image_api.reset()
    assert isinstance(image_api.backend(), registry.RegistryBackend)
    conf.config(backend='glance', group='image')
    try:
        assert isinstance(image_api.backend(), glance.GlanceBackend)
    finally:
        image_api.reset()



def test_only_the_registry_reads_this_database(conf, monkeypatch):
    """A caller may share its transaction with the registry's reads, not
    with Glance's nor with a backend that does not say."""
    image_api.reset()
    try:
        assert image_api.reads_database() is True
        conf.config(backend='glance', group='image')
        assert image_api.reads_database() is False
        monkeypatch.setattr(image_api, 'backend', lambda: object())
        assert image_api.reads_database() is False
    finally:
        image_api.reset()


def test_uncached_get_asks_glance_and_refreshes():
    client = FakeClient({('GET', '/v2/images/%s' % ID): [
        _Resp(200, _doc(status='saving')), _Resp(200, _doc())]})
    backend = glance.GlanceBackend(client=client)
    assert backend.get(_ctx(), ID)['status'] == 'saving'
    assert backend.get(_ctx(), ID, cached=False)['status'] == 'active'
    assert backend.get(_ctx(), ID)['status'] == 'active'


def test_glance_refusal_is_explained_without_html():
    page = ('<html><head><title>400 Bad Request</title></head><body>'
            '<h1>400 Bad Request</h1>Invalid disk format</body></html>')
    client = FakeClient({('POST', '/v2/images'): _Resp(400, text=page)})
    with pytest.raises(exception.InvalidInput) as err:
        glance.GlanceBackend(client=client).create(_ctx(), 'x')
    assert '<' not in str(err.value)
    assert 'Invalid disk format' in str(err.value)


def test_get_all_filters_on_properties_in_glance_and_again_here():
    """Glance is asked by property; an image it returned that lacks one
    (a property Glance does not filter on) is dropped here."""
    body = {'images': [_doc(id='a', image_type='backup', backup_type='d'),
                       _doc(id='b', image_type='snapshot')]}
    client = FakeClient({('GET', '/v2/images'): _Resp(200, body)})
    found = glance.GlanceBackend(client=client).get_all(
        _ctx(), filters={'properties': {'image_type': 'backup',
                                        'backup_type': 'd'}})
    assert [i['id'] for i in found] == ['a']
    params = client.calls[0][2]['params']
    assert (params['image_type'], params['backup_type']) == ('backup', 'd')
