"""A compute restarted under its servers: its VMs are still there (the
fake driver keeps them as a hypervisor does), and a move cast to it while
it was down runs once it is back."""

from tests.functional import conftest
from tests.functional import deployment

NODE = {'node_count': 1, 'vcpus': 8, 'memory_mb': 8192, 'local_gb': 100}


def _server(api, uuid):
    return api.get('/servers/%s' % uuid)[2]['server']


def _running_vms(deploy, host):
    _, _, body = deploy.admin_api.get('/os-hypervisors/detail')
    return sum(h['running_vms'] for h in body['hypervisors']
               if h['service']['host'] == host)


def test_move_cast_to_a_stopped_compute_runs_when_it_is_back(tmp_path,
                                                              request):
    with conftest.deployed(
        tmp_path, request,
        computes={'compute1': NODE, 'compute2': NODE},
        conf={'DEFAULT': {'update_resources_interval': 1}}) as deploy:
        image = deploy.register_image()
        for name, ram in (('small', 256), ('big', 512)):
            status, _, body = deploy.admin_api.post('/flavors', {'flavor': {
                'name': name, 'id': name, 'ram': ram, 'vcpus': 1,
                'disk': 1}})
            assert status == 200, body
        _, _, body = deploy.api.post('/servers', {'server': {
            'name': 'x', 'imageRef': image, 'flavorRef': 'small'}})
        uuid = body['server']['id']
        deployment.wait_for(
            lambda: _server(deploy.api, uuid)['status'] == 'ACTIVE',
            timeout=60, message='ACTIVE')
        host = _server(deploy.admin_api, uuid)['OS-EXT-SRV-ATTR:host']
        other = 'compute2' if host == 'compute1' else 'compute1'
        source = deploy.daemon(host)

        # Restarted: the VM is still running there.
        assert source.stop() == 0
        source.start()
        source.wait_ready()
        deployment.wait_for(lambda: _running_vms(deploy, host) == 1,
                            timeout=30, message='the VM reported again')
        assert _server(deploy.api, uuid)['status'] == 'ACTIVE'

        # Stopped while the destination casts resize_instance to it: the
        # cast waits in its queue and runs once it is back.
        assert source.stop() == 0
        status, _, body = deploy.api.post(
            '/servers/%s/action' % uuid, {'resize': {'flavorRef': 'big'}})
        assert status == 202, body
        deployment.wait_for(
            lambda: _server(deploy.admin_api, uuid)[
                'OS-EXT-STS:task_state'] == 'resize_prep',
            timeout=30, message='the move waiting for its source')
        source.start()
        source.wait_ready()
        deployment.wait_for(
            lambda: _server(deploy.api, uuid)['status'] == 'VERIFY_RESIZE',
            timeout=30, message='VERIFY_RESIZE once the source is back')
        server = _server(deploy.admin_api, uuid)
        assert server['OS-EXT-SRV-ATTR:host'] == other
        status, _, body = deploy.api.post(
            '/servers/%s/action' % uuid, {'confirmResize': None})
        assert status == 204, body
        deployment.wait_for(
            lambda: _running_vms(deploy, host) == 0
            and _running_vms(deploy, other) == 1,
            timeout=30, message='the VM only on the destination')
