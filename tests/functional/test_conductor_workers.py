"""Two conductor workers ([conductor] workers = 2) as daemons: both
consume before the service says READY, both serve boots, and one SIGTERM
stops both cleanly."""

import os
import re

from tests.functional import conftest
from tests.functional import deployment

NODE = {'node_count': 2, 'vcpus': 8, 'memory_mb': 16384, 'local_gb': 200}
FLAVOR = {'flavor': {'name': 'w', 'id': 'w', 'ram': 512, 'vcpus': 1,
                     'disk': 1}}
CONSUMING = re.compile(r'^\S+ \S+ (\d+) INFO .*nova-lite-conductor on \S+ '
                       r'consuming topic conductor')


def _consuming_pids(daemon):
    with open(daemon.log) as log:
        return {int(m.group(1)) for m in map(CONSUMING.match, log) if m}


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_two_workers_serve_and_stop_together(tmp_path, request):
    with conftest.deployed(
        tmp_path, request, computes={'compute1': NODE},
        conf={'conductor': {'workers': 2}}) as deploy:
        conductor = deploy.daemon('conductor')
        # READY came only once both workers consumed.
        pids = _consuming_pids(conductor)
        assert len(pids) == 2, deploy.logs()
        assert conductor.proc.pid not in pids
        image = deploy.register_image()
        status, _, body = deploy.admin_api.post('/flavors', FLAVOR)
        assert status == 200, body
        for index in range(6):
            status, _, body = deploy.api.post('/servers', {'server': {
                'name': 'w%d' % index, 'imageRef': image,
                'flavorRef': 'w'}})
            assert status == 202, body

        def all_active():
            _, _, body = deploy.api.get('/servers/detail')
            states = [s['status'] for s in body['servers']]
            assert 'ERROR' not in states, deploy.logs()
            return len(states) == 6 and set(states) == {'ACTIVE'}

        deployment.wait_for(all_active, timeout=120,
                            message='6 ACTIVE servers')
    assert not [pid for pid in pids if _alive(pid)]
