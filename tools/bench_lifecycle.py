#!/usr/bin/env python3
"""Lifecycle benchmark: every move of a server, through the API, against
the daemons.

Starts conductor, scheduler, computes (fake nodes) and API as processes on
RabbitMQ and PostgreSQL (the functional-test harness), boots N servers,
then takes every one of them through each operation in turn: resize and
confirm, cold-migrate (as an administrator) and confirm, shelve (offloaded
at once: ``shelved_offload_time = 0``) and unshelve. Each operation is
sent for all N servers from C client threads and timed until the last
server reaches the operation's end state. Reported per operation:

* operations per second (N / time from its first request to the last
  server in its end state),
* latency p50 and p99 (request sent -> end state seen in the database,
  polled there so that watching costs the API nothing),
* RPC messages per operation (the daemons' counts of the calls and casts
  they sent on behalf of users, logged every second; a call counts twice:
  request and reply).

Afterwards it checks ``nova-lite-manage quota verify`` and ``placement
audit`` (no drift, no orphan allocation), deletes every server and checks
that no allocation and no usage is left. It exits 1 on any failure.

    tools/bench_lifecycle.py --servers 200 --clients 8
"""

import argparse
import datetime
import os
import statistics
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import sqlalchemy as sa  # noqa: E402

from tests.functional import deployment  # noqa: E402
from tests.upgrade import report  # noqa: E402

# (name, who sends it, action body, vm_state it ends in)
OPERATIONS = (
    ('resize', 'user', {'resize': {'flavorRef': 'bench2'}}, 'resized'),
    ('confirm resize', 'user', {'confirmResize': None}, 'active'),
    ('migrate', 'admin', {'migrate': None}, 'resized'),
    ('confirm migration', 'user', {'confirmResize': None}, 'active'),
    ('shelve', 'user', {'shelve': None}, 'shelved_offloaded'),
    ('unshelve', 'user', {'unshelve': None}, 'active'),
)
# Seconds the daemons are left idle between operations, so that their
# RPC statistics (logged every second) fall on one side of the boundary.
QUIET = 2.5


class Failed(Exception):
    pass


def _send_all(api, requests, clients):
    """Send ``requests`` ([(uuid, method, path, body, ok status)]) from
    ``clients`` threads; {uuid: time sent}."""
    sent, errors = {}, []
    lock = threading.Lock()
    todo = iter(requests)

    def worker():
        while True:
            with lock:
                item = next(todo, None)
            if item is None or errors:
                return
            uuid, method, path, body, ok = item
            started = time.time()
            status, _, payload = api.request(method, path, body)
            with lock:
                if status != ok:
                    errors.append('%s %s: %s %s' % (method, path, status,
                                                     payload))
                sent[uuid] = started

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise Failed('%d requests failed, first: %s' % (len(errors),
                                                          errors[0]))
    return sent


def _wait_states(engine, uuids, vm_state, timeout):
    """Poll the database until every server in ``uuids`` is in
    ``vm_state`` with no task; {uuid: when it was seen so}."""
    query = sa.text('SELECT uuid, vm_state, task_state FROM instances '
                    'WHERE deleted = 0')
    reached = {}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = time.time()
        with engine.connect() as conn:
            rows = conn.execute(query).all()
        for row in rows:
            if row.uuid not in uuids or row.uuid in reached:
                continue
            if row.vm_state == 'error':
                raise Failed('server %s in ERROR: %s' % (
                    row.uuid, _fault(engine, row.uuid)))
            if row.vm_state == vm_state and row.task_state is None:
                reached[row.uuid] = now
        if len(reached) == len(uuids):
            return reached
        time.sleep(0.2)
    raise Failed('%d of %d servers %s after %ss' % (
        len(reached), len(uuids), vm_state, timeout))


def _fault(engine, uuid):
    with engine.connect() as conn:
        return [row.message for row in conn.execute(sa.text(
            'SELECT message FROM instance_faults WHERE instance_uuid = '
            ':uuid'), {'uuid': uuid})]


class Bench:
    def __init__(self, args, deploy):
        self.args = args
        self.deploy = deploy
        self.user = deploy.api.as_user('bench:bench')
        self.admin = deploy.admin_api
        self.engine = sa.create_engine(deploy.database.url)
        self.results = []
        self.uuids = []

    def _phase(self, name, api, requests, vm_state):
        time.sleep(QUIET)
        start = datetime.datetime.now()
        first = time.time()
        sent = _send_all(api, requests, self.args.clients)
        reached = _wait_states(self.engine, set(sent), vm_state,
                               self.args.timeout)
        elapsed = max(reached.values()) - first
        time.sleep(QUIET)
        user = report.delta([d.log for d in self.deploy.daemons], 'user',
                            start, datetime.datetime.now())
        messages = 2 * user['call'] + user['cast'] + user['fanout']
        latencies = [reached[uuid] - sent[uuid] for uuid in sent]
        self.results.append({
            'operation': name, 'per_s': len(sent) / elapsed,
            'p50_ms': 1000 * statistics.median(latencies),
            'p99_ms': 1000 * _percentile(latencies, 99),
            'rpc': messages / len(sent)})
        print('%-18s %7.1f/s  p50 %6.0f ms  p99 %6.0f ms  %5.1f RPC '
              'messages each' % (name, *[self.results[-1][k] for k in (
                  'per_s', 'p50_ms', 'p99_ms', 'rpc')]), flush=True)

    def boot(self, image):
        requests = [(str(i), 'POST', '/servers', {'server': {
            'name': 'life-%d' % i, 'imageRef': image,
            'flavorRef': 'bench'}}, 202) for i in range(self.args.servers)]
        _send_all(self.user, requests, self.args.clients)
        with self.engine.connect() as conn:
            self.uuids = [row.uuid for row in conn.execute(sa.text(
                'SELECT uuid FROM instances WHERE deleted = 0'))]
        _wait_states(self.engine, set(self.uuids), 'active',
                     self.args.timeout)

    def run_operations(self, names):
        apis = {'user': self.user, 'admin': self.admin}
        for name, who, body, vm_state in OPERATIONS:
            if name not in names:
                continue
            requests = [(uuid, 'POST', '/servers/%s/action' % uuid, body,
                         204 if 'confirmResize' in body else 202)
                        for uuid in self.uuids]
            self._phase(name, apis[who], requests, vm_state)

    def check_and_delete(self):
        for args in (('quota', 'verify'), ('placement', 'audit')):
            result = self.deploy.manage(*args)
            if result.returncode:
                raise Failed('nova-lite-manage %s: %s%s' % (
                    ' '.join(args), result.stdout, result.stderr))
        _send_all(self.user, [(uuid, 'DELETE', '/servers/%s' % uuid, None,
                               204) for uuid in self.uuids],
                  self.args.clients)
        deployment.wait_for(self._all_gone, timeout=self.args.timeout,
                            message='every server deleted')
        left = self.deploy.sql('SELECT COUNT(*) FROM allocations')[0][0]
        usage = self.deploy.sql('SELECT COALESCE(SUM(in_use), 0) FROM '
                                'quota_usages')[0][0]
        if left or usage:
            raise Failed('after deleting everything: %d allocations and '
                         '%d quota usage left' % (left, usage))

    def _all_gone(self):
        return not self.deploy.sql(
            'SELECT COUNT(*) FROM instances WHERE deleted = 0')[0][0]


def _percentile(values, pct):
    ordered = sorted(values)
    index = min(len(ordered) - 1, int(round(pct / 100.0 * (len(ordered) - 1))))
    return ordered[index]


def _deployment(args, workdir):
    per_compute = max(1, args.nodes // args.computes)
    computes = {'bench%d' % i: {'node_count': per_compute, 'vcpus': 64,
                                'memory_mb': 262144, 'local_gb': 4000}
                for i in range(args.computes)}
    return deployment.Deployment(
        workdir, backend=args.backend, computes=computes,
        conf={'DEFAULT': {'debug': 'false', 'rpc_stats_log_interval': 1,
                          'shelved_offload_time': 0}})


def _setup(deploy):
    image = deploy.register_image()
    for name, ram in (('bench', 256), ('bench2', 512)):
        status, _, body = deploy.admin_api.post('/flavors', {'flavor': {
            'name': name, 'id': name, 'ram': ram, 'vcpus': 1, 'disk': 1}})
        if status != 200:
            raise Failed('flavor create failed: %s %s' % (status, body))
    return image


def run_once(args, workdir):
    deploy = _deployment(args, workdir)
    try:
        deploy.start()
        bench = Bench(args, deploy)
        try:
            bench.boot(_setup(deploy))
            bench.run_operations(args.operations)
            bench.check_and_delete()
        finally:
            bench.engine.dispose()
        return bench.results
    finally:
        deploy.stop()
        deploy.cleanup()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--servers', type=int, default=200)
    parser.add_argument('--clients', type=int, default=8)
    parser.add_argument('--nodes', type=int, default=100)
    parser.add_argument('--computes', type=int, default=2)
    parser.add_argument('--runs', type=int, default=1)
    parser.add_argument('--backend', default='postgresql',
                        choices=['postgresql', 'mysql'])
    parser.add_argument('--timeout', type=float, default=600)
    parser.add_argument('--operations', nargs='+',
                        default=[op[0] for op in OPERATIONS],
                        choices=[op[0] for op in OPERATIONS],
                        metavar='OPERATION',
                        help='the operations to run, in their fixed order '
                             '(default: all of %s)' % ', '.join(
                                 op[0] for op in OPERATIONS))
    args = parser.parse_args()
    runs = []
    for run in range(args.runs):
        print('run %d of %d (%d servers, %d clients, %d nodes, %s)' % (
            run + 1, args.runs, args.servers, args.clients, args.nodes,
            args.backend), flush=True)
        with tempfile.TemporaryDirectory(prefix='nl-life-') as workdir:
            try:
                runs.append(run_once(args, workdir))
            except Failed as exc:
                print('FAILED: %s' % exc)
                return 1
    if args.runs > 1:
        print('medians of %d runs:' % args.runs)
        for index, result in enumerate(runs[0]):
            med = {key: statistics.median(r[index][key] for r in runs)
                   for key in ('per_s', 'p50_ms', 'p99_ms', 'rpc')}
            print('%-18s %7.1f/s  p50 %6.0f ms  p99 %6.0f ms  %5.1f RPC '
                  'messages each' % (result['operation'], med['per_s'],
                                     med['p50_ms'], med['p99_ms'],
                                     med['rpc']))
    print('no failure, quota verify and placement audit clean, nothing '
          'left after deleting every server')
    return 0


if __name__ == '__main__':
    sys.exit(main())
