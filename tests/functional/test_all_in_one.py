"""nova-lite-all: the embedded defaults (SQLite, local://) boot a server."""

import os

import pytest

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


def test_boot_and_delete(all_in_one):
    daemon, api = all_in_one
    _, _, images = api.get('/images')
    image_id = images['images'][0]['id']
    status, _, body = api.post('/servers', {'server': {
        'name': 'demo', 'imageRef': image_id, 'flavorRef': '1',
        'min_count': 3, 'max_count': 3}})
    assert status == 202, body

    def active():
        servers = api.get('/servers/detail')[2]['servers']
        return (len(servers) == 3
                and all(s['status'] == 'ACTIVE' for s in servers)
                and servers)

    servers = deployment.wait_for(active, timeout=60, message='ACTIVE')
    assert {s['OS-EXT-STS:vm_state'] for s in servers} == {'active'}
    for server in servers:
        assert api.delete('/servers/%s' % server['id'])[0] == 204
    deployment.wait_for(lambda: api.get('/servers')[2]['servers'] == [],
                        timeout=60, message='deleted')
