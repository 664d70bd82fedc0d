"""Quotas through the real daemons: exact under bursts, faults and churn.

One deployment per backend (PostgreSQL, MariaDB) with RabbitMQ, the four
kinds of daemons and one compute of six large fake nodes (node 0 fails
every spawn, so builds reschedule). Each test uses its own project and
sets its limits through the API as an administrator. After each test,
``nova-lite-manage quota verify`` must find no drift.
"""

import collections
import concurrent.futures
import random
import threading
import time
import urllib.error

import pytest

from tests.functional import conftest
from tests.functional import deployment

RESERVATION_EXPIRE = 8
FLAVORS = {'tiny': (1, 512), 'duo': (2, 512), 'huge': (1, 10 ** 6)}
INJECTED_PAUSE = 60


@pytest.fixture(scope='module', params=['postgresql', 'mysql'])
def deploy(request, tmp_path_factory):
    workdir = tmp_path_factory.mktemp('quota-%s' % request.param)
    with conftest.deployed(
        workdir, request, backend=request.param,
        computes={'compute1': {'node_count': 6, 'vcpus': 64,
                               'memory_mb': 65536,
                               'fail_spawn_nodes': '0'}},
        conf={'quota': {'instances': 10, 'cores': 20, 'ram': 51200,
                        'reservation_expire': RESERVATION_EXPIRE,
                        'reservation_expire_check_interval': 1},
              # The create the kill test abandons holds an API thread
              # until its one attempt runs out (not sent again: that
              # test is about the reservation the dead conductor left;
              # test_lost_work.py covers the create sent again).
              'api': {'server_threads': 32, 'provision_attempt_timeout': 15,
                      'write_attempts': 1},
              'DEFAULT': {'rpc_response_timeout': 15}}) as d:
        d.image_id = d.register_image()
        conftest.add_flavors(d, {
            name: {'ram': ram, 'vcpus': vcpus, 'disk': 1}
            for name, (vcpus, ram) in FLAVORS.items()})
        yield d


def _set_quota(deploy, project, **limits):
    status, _, body = deploy.admin_api.request(
        'PUT', '/os-quota-sets/%s' % project, {'quota_set': limits})
    assert status == 200, body


def _usage(deploy, project):
    """{resource: (in_use, reserved)} as os-quota-sets/detail shows it."""
    status, _, body = deploy.admin_api.get(
        '/os-quota-sets/%s/detail' % project)
    assert status == 200, body
    return {r: (v['in_use'], v['reserved'])
            for r, v in body['quota_set'].items() if r != 'id'}


def _live(deploy, project):
    return deploy.sql('SELECT count(*) FROM instances WHERE project_id = '
                      ':p AND deleted = 0', p=project)[0][0]


def _verify(deploy, project=None):
    args = ['quota', 'verify'] + (['--project', project] if project else [])
    result = deploy.manage(*args)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1].startswith('0 of '), \
        result.stdout
    return result.stdout


def _create(api, deploy, flavor, **extra):
    server = {'name': 'q', 'imageRef': deploy.image_id, 'flavorRef': flavor}
    server.update(extra)
    return api.post('/servers', {'server': server})


def _burst(deploy, project, flavor, count=200, users=5):
    """``count`` creates at once (one thread each), from ``users`` users
    of ``project``; returns [(status, body)]."""
    start = threading.Barrier(count)

    def one(index):
        api = deploy.api.as_user('u%d:%s' % (index % users, project))
        start.wait()
        status, _, body = _create(api, deploy, flavor)
        return status, body

    with concurrent.futures.ThreadPoolExecutor(count) as pool:
        return list(pool.map(one, range(count)))


def _check_burst(deploy, results, project, granted, resource):
    codes = collections.Counter(status for status, _ in results)
    assert codes == {202: granted, 403: len(results) - granted}, (
        codes, [b for s, b in results if s not in (202, 403)][:3])
    for status, body in results:
        if status == 403:
            message = body['forbidden']['message']
            assert message.startswith('Quota exceeded for %s: Requested '
                                      % resource), message
    assert _live(deploy, project) == granted


def test_200_concurrent_creates_get_exactly_the_instance_quota(deploy):
    _set_quota(deploy, 'burst-i', instances=10, cores=-1, ram=-1)
    results = _burst(deploy, 'burst-i', 'tiny')
    _check_burst(deploy, results, 'burst-i', 10, 'instances')
    assert _usage(deploy, 'burst-i')['instances'] == (10, 0)
    status, _, body = deploy.api.as_user('u0:burst-i').get('/limits')
    absolute = body['limits']['absolute']
    assert (absolute['maxTotalInstances'],
            absolute['totalInstancesUsed']) == (10, 10), body
    _verify(deploy, 'burst-i')


def test_200_concurrent_creates_stop_at_the_cores_quota(deploy):
    _set_quota(deploy, 'burst-c', instances=-1, cores=15, ram=-1)
    results = _burst(deploy, 'burst-c', 'duo')
    _check_burst(deploy, results, 'burst-c', 7, 'cores')
    usage = _usage(deploy, 'burst-c')
    assert (usage['instances'], usage['cores']) == ((7, 0), (14, 0))
    _verify(deploy, 'burst-c')


def _reservations(deploy, project):
    return deploy.sql('SELECT resource, delta FROM reservations WHERE '
                      'project_id = :p ORDER BY resource', p=project)


def _create_in_background(deploy, project):
    """POST a create whose answer the test does not wait for (the
    conductor handling it will be killed)."""
    def post():
        api = deploy.api.as_user('killed:%s' % project)
        try:
            _create(api, deploy, 'duo')
        except (urllib.error.URLError, OSError):
            pass
    thread = threading.Thread(target=post, daemon=True)
    thread.start()
    return thread


def test_conductor_killed_between_reserve_and_commit(deploy):
    """The only conductor pauses after reserving (fault injection) and
    is SIGKILLed there: the reservation stays, nothing was created; a new
    conductor's expiry task rolls it back once it is due, and the quota
    is whole again."""
    project = 'killed'
    _set_quota(deploy, project, instances=2, cores=-1, ram=-1)
    status, _, body = _create(deploy.api.as_user('k:%s' % project), deploy,
                              'tiny')
    assert status == 202, body
    deploy.daemon('conductor').stop()
    deploy.daemons.remove(deploy.daemon('conductor'))
    paused = deploy.start_daemon(
        'nova-lite-conductor', 'conductor-paused',
        {'quota': {'reservation_commit_delay': INJECTED_PAUSE}})
    _create_in_background(deploy, project)
    deployment.wait_for(lambda: _reservations(deploy, project),
                        timeout=30, message='a reservation')
    deploy.kill(paused)
    killed_at = time.monotonic()
    assert [tuple(r) for r in _reservations(deploy, project)] == [
        ('cores', 2), ('instances', 1), ('ram', 512)]
    assert _live(deploy, project) == 1
    assert _usage(deploy, project)['instances'] == (1, 1)
    deploy.start_daemon('nova-lite-conductor', 'conductor')
    deployment.wait_for(lambda: not _reservations(deploy, project),
                        timeout=RESERVATION_EXPIRE + 30,
                        message='expiry of the reservation')
    # Not before it was due.
    assert time.monotonic() - killed_at > RESERVATION_EXPIRE - 3
    assert _usage(deploy, project)['instances'] == (1, 0)
    assert _live(deploy, project) == 1
    _verify(deploy, project)
    status, _, body = _create(deploy.api.as_user('k:%s' % project), deploy,
                              'tiny')
    assert status == 202, body


def _churn(deploy, project, seed, operations=80, workers=8):
    """Random creates (some never fit a host, some too many), deletes
    (some twice at once) from several threads; returns what happened."""
    rng = random.Random(seed)
    plan = []
    for _ in range(operations):
        kind = rng.choice(['create'] * 3 + ['fail'] + ['delete'] * 3
                          + ['double-delete'])
        plan.append((kind, rng.choice(['tiny', 'duo']), rng.randint(1, 3),
                     rng.randrange(3)))
    lock = threading.Lock()
    servers = []
    seen = collections.Counter()

    def run(step):
        kind, flavor, count, user = step
        api = deploy.api.as_user('u%d:%s' % (user, project))
        if kind in ('create', 'fail'):
            status, _, body = _create(
                api, deploy, 'huge' if kind == 'fail' else flavor,
                min_count=1, max_count=count)
            if status == 202:
                with lock:
                    servers.append(body['server']['id'])
            seen['%s %s' % (kind, status)] += 1
            assert status in (202, 403), body
            return
        with lock:
            if not servers:
                return
            victim = servers.pop(rng.randrange(len(servers)))
        times = 2 if kind == 'double-delete' else 1
        with concurrent.futures.ThreadPoolExecutor(times) as pool:
            for status, _, body in pool.map(
                    lambda _: api.delete('/servers/%s' % victim),
                    range(times)):
                assert status in (204, 404, 409), body
                seen['delete %s' % status] += 1

    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        list(pool.map(run, plan))
    return seen


def _settled(deploy, project):
    return not deploy.sql(
        "SELECT id FROM instances WHERE project_id = :p AND deleted = 0 AND "
        "(vm_state = 'building' OR task_state = 'deleting')", p=project)


def test_random_creates_deletes_and_failures_leave_no_drift(deploy):
    seed = random.randrange(10 ** 6)
    project = 'churn'
    _set_quota(deploy, project, instances=8, cores=12, ram=-1)
    seen = _churn(deploy, project, seed)
    print('churn seed %d: %s' % (seed, dict(seen)))
    assert seen['create 403'] and seen['create 202'], (seed, seen)
    deployment.wait_for(lambda: _settled(deploy, project), timeout=90,
                        message='builds and deletes to finish')
    usage = _usage(deploy, project)
    # Servers whose build failed for good (ERROR) gave their quota back.
    holding = deploy.sql(
        "SELECT count(*) FROM instances WHERE project_id = :p AND "
        "deleted = 0 AND NOT quota_released", p=project)[0][0]
    released = deploy.sql(
        "SELECT count(*) FROM instances WHERE project_id = :p AND "
        "deleted = 0 AND quota_released AND vm_state <> 'error'",
        p=project)[0][0]
    assert released == 0, seed
    assert usage['instances'] == (holding, 0), (seed, usage)
    assert usage['instances'][0] <= 8 and usage['cores'][0] <= 12, seed
    _verify(deploy)
