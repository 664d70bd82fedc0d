"""nova-lite-api with several workers ([api] workers) and under systemd
socket activation, as daemons on RabbitMQ and PostgreSQL."""

import concurrent.futures
import os
import re
import signal
import socket
import sys

from tests.functional import conftest
from tests.functional import deployment

NODE = {'node_count': 2, 'vcpus': 8, 'memory_mb': 16384, 'local_gb': 200}
FLAVOR = {'flavor': {'name': 'w', 'id': 'w', 'ram': 512, 'vcpus': 1,
                     'disk': 1}}
LISTENING = re.compile(r'^\S+ \S+ (\d+) INFO .*nova-lite-api listening on ')

def _listening_pids(daemon):
    with open(daemon.log) as log:
        return [int(m.group(1)) for m in map(LISTENING.match, log) if m]


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _many_gets(api, count):
    """``count`` GET /flavors from 8 threads, each on a new connection;
    the statuses."""
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        return list(pool.map(lambda _: api.get('/flavors')[0],
                             range(count)))


def test_two_workers_share_one_socket(tmp_path, request):
    with conftest.deployed(
        tmp_path, request, computes={'compute1': NODE},
        conf={'api': {'workers': 2}}) as deploy:
        api = deploy.daemon('api')
        # READY came only once both workers listened, on the one port.
        pids = _listening_pids(api)
        assert len(set(pids)) == 2, deploy.logs()
        assert api.proc.pid not in pids
        assert _many_gets(deploy.api, 40) == [200] * 40
        image = deploy.register_image()
        assert deploy.admin_api.post('/flavors', FLAVOR)[0] == 200
        status, _, body = deploy.api.post('/servers', {'server': {
            'name': 'w', 'imageRef': image, 'flavorRef': 'w'}})
        assert status == 202, body

        # A worker killed: the other goes on serving, and the launcher
        # starts a replacement that accepts from the same socket.
        os.kill(pids[0], signal.SIGKILL)
        assert _many_gets(deploy.api, 20) == [200] * 20
        deployment.wait_for(lambda: len(set(_listening_pids(api))) == 3,
                            timeout=30, message='a replacement worker')
        assert _many_gets(deploy.api, 20) == [200] * 20
        alive = [pid for pid in set(_listening_pids(api)) if _alive(pid)]
        assert len(alive) == 2, alive
    assert not [pid for pid in alive if _alive(pid)]


def test_socket_activation_serves_what_waited(tmp_path, request):
    """With the socket from systemd, a request made while no API runs
    waits in the kernel's queue and is answered once the API starts."""
    with conftest.deployed(tmp_path, request,
                           computes={'compute1': NODE}) as deploy:
        api = deploy.daemon('api')
        assert api.stop() == 0
        deploy.daemons.remove(api)
        listener = socket.socket()
        listener.bind(('127.0.0.1', 0))
        listener.listen(16)
        port = listener.getsockname()[1]
        early = concurrent.futures.ThreadPoolExecutor(1).submit(
            deployment.ApiClient('http://127.0.0.1:%d/v2.1' % port).get,
            '/flavors')
        argv = [sys.executable, '-c', deployment.ACTIVATE,
                str(listener.fileno()),
                os.path.join(deployment.BIN, 'nova-lite-api'),
                '--config-file', deploy.config_file]
        daemon = deployment.Daemon('api-activated', argv, deploy.workdir)
        daemon.pass_fds = (listener.fileno(),)
        deploy.daemons.append(daemon)
        daemon.start()
        daemon.wait_ready()
        listener.close()
        status, _, body = early.result(timeout=30)
        assert status == 200, body
        # It serves the socket it was given, not its configured port.
        assert deployment.ApiClient(
            'http://127.0.0.1:%d/v2.1' % port).get('/flavors')[0] == 200
        with open(daemon.log) as log:
            assert 'Serving the socket systemd passed' in log.read()
