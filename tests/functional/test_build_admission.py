"""[conductor] max_pending_builds as daemons: creates sent at once, more
than the conductor admits, all wait their turn and end ACTIVE, none is
taken for a lost build while it waits, and a multi-server request larger
than the limit still goes."""

import threading

from tests.functional import conftest
from tests.functional import deployment

NODE = {'node_count': 2, 'vcpus': 16, 'memory_mb': 32768, 'local_gb': 400}
FLAVOR = {'a': {'ram': 512, 'vcpus': 1, 'disk': 1}}


def test_creates_beyond_the_limit_wait_and_all_build(tmp_path, request):
    with conftest.deployed(
        tmp_path, request, computes={'compute1': NODE},
        conf={'conductor': {'max_pending_builds': 1,
                            'build_admission_timeout': 10,
                            'lost_build_grace': 1,
                            'lost_build_check_interval': 1}}) as deploy:
        image = deploy.register_image()
        conftest.add_flavors(deploy, FLAVOR)
        answers = []

        def create(index, count):
            answers.append(deploy.api.post('/servers', {'server': {
                'name': 'a%d' % index, 'imageRef': image, 'flavorRef': 'a',
                'min_count': count, 'max_count': count}})[0])

        threads = [threading.Thread(target=create, args=(i, 1 + i % 3))
                   for i in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert answers == [202] * 6

        def all_active():
            _, _, body = deploy.api.get('/servers/detail')
            states = [s['status'] for s in body['servers']]
            assert 'ERROR' not in states, deploy.logs()
            return len(states) == 12 and set(states) == {'ACTIVE'}

        deployment.wait_for(all_active, timeout=120,
                            message='12 ACTIVE servers')
        with open(deploy.daemon('conductor').log) as log:
            assert 'was lost by conductor' not in log.read()
