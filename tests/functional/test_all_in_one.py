"""nova-lite-all: the embedded defaults (SQLite, local://) boot a server."""

import os

import pytest
import sqlalchemy as sa

from tests.functional import deployment


@pytest.fixture(scope='module')
def all_in_one(module_tmp):
    port = deployment.free_port()
    conf = module_tmp / 'all.conf'
    conf.write_text('[DEFAULT]\nstate_path = %s\nosapi_compute_listen_port = '
                    '%d\n[api]\nrate_limit = false\n' % (module_tmp / 'state',
                                                         port))
    daemon = deployment.Daemon(
        'all', [os.path.join(deployment.BIN, 'nova-lite-all'),
                '--config-file', str(conf)], str(module_tmp))
    daemon.start()
    try:
        daemon.wait_ready()
    except Exception:
        daemon.kill()
        raise
    yield daemon, deployment.ApiClient('http://127.0.0.1:%d/v2.1' % port)
    code = daemon.stop()
    assert code == 0, daemon.tail()


def test_first_run_creates_image_flavors_and_sqlite(all_in_one, module_tmp):
    daemon, api = all_in_one
    assert (module_tmp / 'state' / 'nova_lite.sqlite').exists()
    _, _, images = api.get('/images')
    assert [i['name'] for i in images['images']] == ['cirros']
    _, _, flavors = api.get('/flavors')
    assert {'m1.tiny', 'm1.small'} <= {f['name'] for f in flavors['flavors']}
    # The first-run instructions tell how to boot a server.
    assert 'curl -s -H "X-Auth-Token: demo:demo"' in open(daemon.log).read()


def _allocations(module_tmp):
    engine = sa.create_engine('sqlite:///%s' % (module_tmp / 'state' /
                                                'nova_lite.sqlite'))
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text(
                'SELECT consumer_id, resource_class, used FROM allocations'
            )).all()
    finally:
        engine.dispose()


def test_boot_ten_list_show_delete(all_in_one, module_tmp):
    daemon, api = all_in_one
    admin = api.as_user('admin:admin')
    status, _, body = admin.post('/flavors', {'flavor': {
        'name': 'aio', 'id': 'aio', 'ram': 256, 'vcpus': 1, 'disk': 1}})
    assert status == 200, body
    image_id = api.get('/images')[2]['images'][0]['id']
    status, _, body = api.post('/servers', {'server': {
        'name': 'demo', 'imageRef': image_id, 'flavorRef': 'aio',
        'min_count': 10, 'max_count': 10}})
    assert status == 202, body

    def active():
        servers = api.get('/servers/detail')[2]['servers']
        assert not [s for s in servers if s['status'] == 'ERROR'], servers
        return (len(servers) == 10
                and all(s['status'] == 'ACTIVE' for s in servers)
                and servers)

    servers = deployment.wait_for(active, timeout=60, message='ACTIVE')
    uuids = {s['id'] for s in servers}
    rows = _allocations(module_tmp)
    assert {row.consumer_id for row in rows} == uuids
    assert {(row.resource_class, row.used) for row in rows} == {
        ('VCPU', 1), ('MEMORY_MB', 256), ('DISK_GB', 1)}
    assert {s['id'] for s in api.get('/servers')[2]['servers']} == uuids
    shown = api.get('/servers/%s' % servers[0]['id'])[2]['server']
    assert shown['OS-EXT-STS:vm_state'] == 'active'
    for uuid in uuids:
        assert api.delete('/servers/%s' % uuid)[0] == 204
    deployment.wait_for(lambda: api.get('/servers')[2]['servers'] == [],
                        timeout=60, message='deleted')
    deployment.wait_for(lambda: _allocations(module_tmp) == [], timeout=30,
                        message='allocations removed')
