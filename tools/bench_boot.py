#!/usr/bin/env python3
"""Boot benchmark: servers per second through the API, against the daemons.

Starts conductor, scheduler, computes (fake nodes) and API as processes on
RabbitMQ and PostgreSQL (the functional-test harness), boots N servers
through HTTP from C client threads, and reports:

* boots per second sustained (N / time from the first POST to the last
  server seen ACTIVE),
* API-to-ACTIVE latency p50 and p99 (POST sent -> the instance's row
  saved ACTIVE, read from the database so that watching costs the API
  nothing; the row's updated_at, stamped by the conductor with
  microseconds, since launched_at crosses RPC as a versioned-object
  DateTime and keeps whole seconds only),
* RPC messages per boot (every daemon counts the calls and casts it sends
  on behalf of user requests, apart from its own start-up, heartbeats and
  periodic work, and logs the totals when it stops; a call counts twice:
  request and reply).

Repeat with --runs and the medians are reported, since this machine is
shared and noisy. Example:

    tools/bench_boot.py --servers 300 --clients 8 --nodes 100 --runs 3
"""

import argparse
import ast
import datetime
import os
import re
import statistics
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import sqlalchemy as sa  # noqa: E402

from tests.functional import deployment  # noqa: E402

STATS_LINE = re.compile(r'RPC statistics: (\{.*\})')


def _percentile(values, pct):
    ordered = sorted(values)
    index = min(len(ordered) - 1, int(round(pct / 100.0 * (len(ordered) - 1))))
    return ordered[index]


def _setup(deploy):
    image = deploy.register_image()
    status, _, body = deploy.admin_api.post('/flavors', {'flavor': {
        'name': 'bench', 'id': 'bench', 'ram': 256, 'vcpus': 1,
        'disk': 1}})
    if status != 200:
        raise RuntimeError('flavor create failed: %s %s' % (status, body))
    return image


def _boot_all(api, image, servers, clients):
    started = {}
    lock = threading.Lock()
    names = iter(range(servers))

    def worker():
        while True:
            with lock:
                index = next(names, None)
            if index is None:
                return
            t0 = time.time()
            status, _, body = api.post('/servers', {'server': {
                'name': 'bench-%d' % index, 'imageRef': image,
                'flavorRef': 'bench'}})
            if status != 202:
                raise RuntimeError('boot failed: %s %s' % (status, body))
            with lock:
                started[body['server']['id']] = t0

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    first = time.time()
    for thread in threads:
        thread.start()
    return first, started, threads


def _watch(deploy, started, threads, servers, timeout):
    """Wait until every server is ACTIVE; return {uuid: when it was}."""
    engine = sa.create_engine(deploy.database.url)
    query = sa.text("SELECT uuid, vm_state, updated_at FROM instances "
                    "WHERE deleted = 0")
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            with engine.connect() as conn:
                rows = conn.execute(query).all()
            errors = [r.uuid for r in rows if r.vm_state == 'error']
            if errors:
                raise RuntimeError('servers in ERROR: %s' % errors[:5])
            active = {r.uuid: r.updated_at for r in rows
                      if r.vm_state == 'active'}
            if len(active) >= servers:
                break
            time.sleep(0.5)
    finally:
        engine.dispose()
    for thread in threads:
        thread.join()
    if len(active) < servers:
        raise RuntimeError('%d of %d servers ACTIVE after %ss' % (
            len(active), servers, timeout))
    return {uuid: launched.replace(tzinfo=datetime.timezone.utc).timestamp()
            for uuid, launched in active.items()}


def _rpc_messages(deploy):
    """(total messages, {daemon: counts}) from the daemons' stop logs."""
    by_daemon = {}
    for daemon in deploy.daemons:
        with open(daemon.log) as log:
            for line in log:
                match = STATS_LINE.search(line)
                if match:
                    # The last line (logged at stop) has the totals.
                    by_daemon[daemon.name] = ast.literal_eval(match.group(1))
    total = 0
    for counts in by_daemon.values():
        user = counts.get('user', {})
        total += (2 * user.get('call', 0) + user.get('cast', 0)
                  + user.get('fanout', 0))
    return total, by_daemon


def _daemon_defaults(args):
    options = {'debug': 'false'}
    if args.executor_threads:
        options['executor_thread_pool_size'] = args.executor_threads
    return options


def run_once(args, workdir):
    per_compute = max(1, args.nodes // args.computes)
    computes = {'bench%d' % i: {'node_count': per_compute, 'vcpus': 64,
                                'memory_mb': 262144, 'local_gb': 4000}
                for i in range(args.computes)}
    deploy = deployment.Deployment(
        workdir, backend=args.backend, computes=computes,
        conf={'DEFAULT': _daemon_defaults(args)})
    deploy.start()
    try:
        api = deploy.api.as_user('bench:bench')
        image = _setup(deploy)
        first, started, threads = _boot_all(api, image, args.servers,
                                            args.clients)
        active = _watch(deploy, started, threads, args.servers,
                        args.timeout)
    finally:
        codes = deploy.stop()
        messages, by_daemon = _rpc_messages(deploy)
        deploy.cleanup()
    if args.verbose:
        print('RPC messages sent, by daemon: %s' % by_daemon)
    if set(codes.values()) != {0}:
        print('warning: unclean exits %s' % codes, file=sys.stderr)
    latencies = [active[uuid] - started[uuid] for uuid in active]
    elapsed = max(active.values()) - first
    return {'boots_per_s': args.servers / elapsed,
            'p50_ms': 1000 * _percentile(latencies, 50),
            'p99_ms': 1000 * _percentile(latencies, 99),
            'rpc_per_boot': messages / float(args.servers)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--servers', type=int, default=300)
    parser.add_argument('--clients', type=int, default=8)
    parser.add_argument('--nodes', type=int, default=100)
    parser.add_argument('--computes', type=int, default=2)
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--backend', default='postgresql',
                        choices=['postgresql', 'mysql'])
    parser.add_argument('--timeout', type=float, default=600)
    parser.add_argument('--executor-threads', type=int,
                        help='[DEFAULT] executor_thread_pool_size of the '
                             'daemons (default: nova_lite\'s)')
    parser.add_argument('--verbose', action='store_true',
                        help='print each daemon\'s RPC message counts')
    args = parser.parse_args()
    results = []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory(prefix='nl-bench-') as workdir:
            result = run_once(args, workdir)
        results.append(result)
        print('run %d: %.1f boots/s, p50 %.0f ms, p99 %.0f ms, '
              '%.1f RPC messages/boot' % (
                  run + 1, result['boots_per_s'], result['p50_ms'],
                  result['p99_ms'], result['rpc_per_boot']), flush=True)
    print('median of %d runs (%d servers, %d clients, %d nodes, %s): '
          '%.1f boots/s sustained, API-to-ACTIVE p50 %.0f ms, p99 %.0f ms, '
          '%.1f RPC messages per boot' % (
              args.runs, args.servers, args.clients, args.nodes,
              args.backend,
              statistics.median(r['boots_per_s'] for r in results),
              statistics.median(r['p50_ms'] for r in results),
              statistics.median(r['p99_ms'] for r in results),
              statistics.median(r['rpc_per_boot'] for r in results)))


if __name__ == '__main__':
    main()
