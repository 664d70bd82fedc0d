#!/usr/bin/env python3
"""Quota benchmark: reservations per second for one project.

Runs the quota engine in this process against a scratch database
(PostgreSQL by default, as the tests reach it: NOVA_LITE_TEST_PG_URL) from
1, 4 and 16 client threads, every client reserving for the same project
(the worst case: one project's reservations are serialised by design) and
committing. One reservation = ``reserve`` (lock, fit, record) plus
``commit`` (apply, in a transaction of its own), the two transactions of
a boot minus the server records. Reports per level:

* reservations per second sustained,
* latency p50 and p99 of one reservation,
* the share of reservations that hit a deadlock retry (and how many
  retries there were in all: deadlocks and duplicate first inserts),
* the CPU time of this process (the clients and the quota engine, not
  the database) per reservation.

Limits are unlimited, so nothing is refused and the numbers measure the
locking. Repeat with --runs and the medians are reported. Example:

    tools/bench_quota.py --seconds 10 --runs 3 --clients 1,4,16
"""

import argparse
import collections
import logging
import os
import statistics
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import nova_lite  # noqa: E402,F401  (threading backend first)
from nova_lite.conf import CONF  # noqa: E402
from nova_lite import context as nl_context  # noqa: E402
from nova_lite import objects  # noqa: E402
from nova_lite.quota import limits  # noqa: E402
from nova_lite.quota import reservations  # noqa: E402
from nova_lite.quota import usages  # noqa: E402
from tests import db_fixtures  # noqa: E402

PER_VM = {'instances': 1, 'cores': 2, 'ram': 2048}
UNLIMITED = {'instances': -1, 'cores': -1, 'ram': -1}


def _percentile(values, pct):
    ordered = sorted(values)
    index = min(len(ordered) - 1,
                int(round(pct / 100.0 * (len(ordered) - 1))))
    return ordered[index]


def _client(project, user, deadline, results):
    ctxt = nl_context.get_admin_context()
    latencies = []
    deadlocked = 0
    while time.monotonic() < deadline:
        before = usages.thread_retries()['DBDeadlock']
        started = time.monotonic()
        held = reservations.reserve(ctxt, project, user, PER_VM)
        # A boot commits the Reservation it holds (commit_in_session).
        reservations.commit(ctxt, held)
        latencies.append(time.monotonic() - started)
        deadlocked += usages.thread_retries()['DBDeadlock'] > before
    results.append((latencies, deadlocked))


def run_level(clients, seconds, run):
    """One measurement: ``clients`` threads for ``seconds``."""
    project = 'bench-%d-%d' % (clients, run)
    ctxt = nl_context.get_admin_context()
    limits.set_limits(ctxt, UNLIMITED, project_id=project)
    # First reservation of each user outside the clock: it creates the
    # usage records.
    for index in range(clients):
        held = reservations.reserve(ctxt, project, 'u%d' % index, PER_VM)
        reservations.commit(ctxt, held.uuid)
    retries_before = collections.Counter(usages.RETRIES)
    results = []
    deadline = time.monotonic() + seconds
    threads = [threading.Thread(target=_client,
                                args=(project, 'u%d' % i, deadline,
                                      results))
               for i in range(clients)]
    started = time.monotonic()
    cpu_started = time.process_time()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    cpu = time.process_time() - cpu_started
    latencies = [v for lat, _d in results for v in lat]
    retries = collections.Counter(usages.RETRIES)
    retries.subtract(retries_before)
    return {
        'rate': len(latencies) / elapsed,
        'p50_ms': 1000 * _percentile(latencies, 50),
        'p99_ms': 1000 * _percentile(latencies, 99),
        'deadlock_share': sum(d for _l, d in results) / len(latencies),
        'retries': sum(retries.values()),
        'cpu_ms': 1000 * cpu / len(latencies),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backend', default='postgresql',
                        choices=['postgresql', 'mysql'])
    parser.add_argument('--clients', default='1,4,16',
                        help='comma-separated client thread counts')
    parser.add_argument('--seconds', type=float, default=10.0)
    parser.add_argument('--runs', type=int, default=3)
    args = parser.parse_args(argv)
    CONF([], project='nova_lite', default_config_files=[])
    objects.register_all()
    # The warm-up's records have no servers behind them: the recounts that
    # follow would log "drift" for every user.
    logging.getLogger('nova_lite.quota').setLevel(logging.ERROR)
    database = db_fixtures.MigratedDatabase(args.backend).setup()
    try:
        print('%s, %gs per run, median of %d run(s)' % (
            args.backend, args.seconds, args.runs))
        print('%8s %14s %9s %9s %15s %8s %8s' % (
            'clients', 'reservations/s', 'p50 ms', 'p99 ms',
            'deadlock share', 'retries', 'CPU ms'))
        for clients in [int(c) for c in args.clients.split(',')]:
            runs = [run_level(clients, args.seconds, run)
                    for run in range(args.runs)]
            med = {key: statistics.median(r[key] for r in runs)
                   for key in runs[0]}
            print('%8d %14.1f %9.1f %9.1f %14.2f%% %8d %8.2f' % (
                clients, med['rate'], med['p50_ms'], med['p99_ms'],
                100 * med['deadlock_share'], med['retries'],
                med['cpu_ms']))
            print('%8s runs: %s' % ('', ', '.join(
                '%.1f/s' % r['rate'] for r in runs)))
    finally:
        database.cleanup()


if __name__ == '__main__':
    sys.exit(main())
