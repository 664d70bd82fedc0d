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
* the CPU time of the client processes (the clients and the quota
  engine) and, on PostgreSQL, of the database backends serving them, per
  reservation,
* how long the project's locks were held per reservation, as the clients
  see it (from the end of each transaction's first statement, the lock,
  to its connection's return to the pool after COMMIT), and that time
  times the rate ("lock busy": near 1 when the reservations queue on
  the locks).

``--processes`` spreads the clients over that many processes, so that
their CPU is not one interpreter's (a conductor runs
``[conductor] workers`` processes too). ``--no-flush`` (PostgreSQL) turns
off ``synchronous_commit`` for the bench's own sessions, to show what the
WAL flush of each COMMIT, which a transaction waits for with its locks
held, costs a project's reservations; not a setting to deploy.

Limits are unlimited, so nothing is refused and the numbers measure the
locking. Repeat with --runs and the medians are reported. Example:

    tools/bench_quota.py --seconds 10 --runs 3 --clients 1,4,16
"""

import argparse
import collections
import logging
import multiprocessing
import os
import statistics
import sys
import threading
import time

import sqlalchemy as sa

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import nova_lite  # noqa: E402,F401  (threading backend first)
from nova_lite.conf import CONF  # noqa: E402
from nova_lite import context as nl_context  # noqa: E402
from nova_lite.db import api as db_api  # noqa: E402
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


class _Watch:
    """What this process's connections cost: the time each transaction
    held the locks (from the end of its first statement, which takes
    them, to the connection's return to the pool after COMMIT) and the
    CPU of their PostgreSQL backends."""

    def __init__(self):
        self.held = 0.0
        self.backends = {}
        self._lock = threading.Lock()

    def install(self, engine):
        sa.event.listen(engine, 'after_cursor_execute', self._first)
        # After COMMIT the pool resets the connection (a ROLLBACK round
        # trip on MariaDB, no lock held), then checks it in.
        sa.event.listen(engine, 'reset', self._released)
        sa.event.listen(engine, 'checkin', self._released)
        sa.event.listen(engine, 'connect', self._connect)

    def _first(self, conn, cursor, statement, params, context, many):
        conn.info.setdefault('bench_first', time.monotonic())

    def _released(self, dbapi_connection, record, *reset_state):
        first = record.info.pop('bench_first', None)
        if first is not None:
            with self._lock:
                self.held += time.monotonic() - first

    def _connect(self, dbapi_connection, record):
        pid = getattr(dbapi_connection, 'get_backend_pid', None)
        if pid is not None:
            with self._lock:
                self.backends[pid()] = _backend_cpu(pid())

    def restart(self):
        with self._lock:
            self.held = 0.0
            self.backends = {pid: _backend_cpu(pid)
                             for pid in self.backends}

    def backend_cpu(self):
        return sum(max(_backend_cpu(pid) - cpu, 0.0)
                   for pid, cpu in self.backends.items())


def _backend_cpu(pid):
    """CPU seconds of a (local) database backend process, 0 if unknown."""
    try:
        with open('/proc/%d/stat' % pid) as stat:
            fields = stat.read().rsplit(')', 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


WATCH = _Watch()


def _no_flush(engine):
    def connected(dbapi_connection, record):
        with dbapi_connection.cursor() as cursor:
            cursor.execute('SET synchronous_commit TO off')
        dbapi_connection.commit()
    sa.event.listen(engine, 'connect', connected)


def _client(project, user, start, deadline, results):
    ctxt = nl_context.get_admin_context()
    latencies = []
    deadlocked = 0
    time.sleep(max(start - time.monotonic(), 0))
    while time.monotonic() < deadline:
        before = usages.thread_retries()['DBDeadlock']
        started = time.monotonic()
        held = reservations.reserve(ctxt, project, user, PER_VM)
        # A boot commits the Reservation it holds (commit_in_session).
        reservations.commit(ctxt, held)
        latencies.append(time.monotonic() - started)
        deadlocked += usages.thread_retries()['DBDeadlock'] > before
    results.append((latencies, deadlocked))


def _run_clients(project, users, start, deadline):
    """Run one client thread per user in this process; return what they
    measured."""
    WATCH.restart()
    retries_before = collections.Counter(usages.RETRIES)
    cpu_started = time.process_time()
    results = []
    threads = [threading.Thread(target=_client, args=(
        project, user, start, deadline, results)) for user in users]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    retries = collections.Counter(usages.RETRIES)
    retries.subtract(retries_before)
    return {'latencies': [v for lat, _d in results for v in lat],
            'deadlocked': sum(d for _l, d in results),
            'retries': sum(retries.values()),
            'cpu': time.process_time() - cpu_started,
            'db_cpu': WATCH.backend_cpu(), 'held': WATCH.held}


def _child(project, users, start, deadline, queue):
    # The parent's pooled connections are its own: forget them, unclosed.
    db_api.get_engine().dispose(close=False)
    WATCH.backends = {}
    queue.put(_run_clients(project, users, start, deadline))


def _in_processes(project, users, processes, start, deadline):
    context = multiprocessing.get_context('fork')
    queue = context.Queue()
    children = [context.Process(target=_child, args=(
        project, users[index::processes], start, deadline, queue))
        for index in range(processes)]
    for child in children:
        child.start()
    parts = [queue.get() for _child in children]
    for child in children:
        child.join()
    return {key: (sum((p[key] for p in parts), [])
                  if key == 'latencies' else sum(p[key] for p in parts))
            for key in parts[0]}


def run_level(clients, seconds, run, processes=1):
    """One measurement: ``clients`` threads (over ``processes``
    processes) for ``seconds``."""
    project = 'bench-%d-%d' % (clients, run)
    ctxt = nl_context.get_admin_context()
    limits.set_limits(ctxt, UNLIMITED, project_id=project)
    users = ['u%d' % index for index in range(clients)]
    # First reservation of each user outside the clock: it creates the
    # usage records.
    for user in users:
        held = reservations.reserve(ctxt, project, user, PER_VM)
        reservations.commit(ctxt, held.uuid)
    # The clients start together, once every process is up.
    start = time.monotonic() + (0.5 if processes > 1 else 0.0)
    deadline = start + seconds
    if processes > 1:
        measured = _in_processes(project, users, processes, start,
                                 deadline)
    else:
        measured = _run_clients(project, users, start, deadline)
    elapsed = time.monotonic() - start
    latencies = measured['latencies']
    done = len(latencies)
    return {
        'rate': done / elapsed,
        'p50_ms': 1000 * _percentile(latencies, 50),
        'p99_ms': 1000 * _percentile(latencies, 99),
        'deadlock_share': measured['deadlocked'] / done,
        'retries': measured['retries'],
        'cpu_ms': 1000 * measured['cpu'] / done,
        'db_cpu_ms': 1000 * measured['db_cpu'] / done,
        'held_ms': 1000 * measured['held'] / done,
        'lock_busy': measured['held'] / elapsed,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backend', default='postgresql',
                        choices=['postgresql', 'mysql'])
    parser.add_argument('--clients', default='1,4,16',
                        help='comma-separated client thread counts')
    parser.add_argument('--seconds', type=float, default=10.0)
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--no-flush', action='store_true',
                        help='PostgreSQL: synchronous_commit off for the '
                        "bench's sessions (a measurement, not advice)")
    parser.add_argument('--processes', type=int, default=1,
                        help='client processes the threads are spread '
                        'over (default 1: one interpreter)')
    args = parser.parse_args(argv)
    CONF([], project='nova_lite', default_config_files=[])
    objects.register_all()
    # The warm-up's records have no servers behind them: the recounts that
    # follow would log "drift" for every user.
    logging.getLogger('nova_lite.quota').setLevel(logging.ERROR)
    database = db_fixtures.MigratedDatabase(args.backend).setup()
    WATCH.install(db_api.get_engine())
    if args.no_flush:
        _no_flush(db_api.get_engine())
    # Connections opened before the watch are opened again, watched.
    db_api.get_engine().dispose()
    try:
        print('%s%s, %gs per run, median of %d run(s), %d process(es)' % (
            args.backend, ' (no flush)' if args.no_flush else '',
            args.seconds, args.runs, args.processes))
        print('%8s %14s %8s %8s %9s %8s %8s %9s %8s %9s' % (
            'clients', 'reservations/s', 'p50 ms', 'p99 ms',
            'deadlocks', 'retries', 'CPU ms', 'DB CPU ms', 'held ms',
            'lock busy'))
        for clients in [int(c) for c in args.clients.split(',')]:
            runs = [run_level(clients, args.seconds, run, args.processes)
                    for run in range(args.runs)]
            med = {key: statistics.median(r[key] for r in runs)
                   for key in runs[0]}
            print('%8d %14.1f %8.1f %8.1f %8.2f%% %8d %8.2f %9.2f %8.2f '
                  '%9.2f' % (
                      clients, med['rate'], med['p50_ms'], med['p99_ms'],
                      100 * med['deadlock_share'], med['retries'],
                      med['cpu_ms'], med['db_cpu_ms'], med['held_ms'],
                      med['lock_busy']))
            print('%8s runs: %s' % ('', ', '.join(
                '%.1f/s' % r['rate'] for r in runs)))
    finally:
        database.cleanup()


if __name__ == '__main__':
    sys.exit(main())
