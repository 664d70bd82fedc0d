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
  request and reply),
* CPU per boot of each kind of process and in total (see
  ``boot_metrics``: the daemons' process trees, the PostgreSQL backends of
  the bench's database, RabbitMQ's whole broker), from the first POST to
  the last server seen ACTIVE, so it includes the daemons' own periodic
  work in that window,
* context switches per boot of the same processes, and the machine's
  busy time beyond what they used (this tool's own clients, the kernel's
  work on nobody's account, other users) and its idle share, over the
  same window: a rate below what the CPU per boot allows shows there,
* SQL statements and transactions per boot (counted by the daemons for
  user requests, ``nova_lite.diagnostics``), and PostgreSQL's count of
  the database's transactions over the run (periodic work, start-up and
  stop included).

``--profile conductor`` (or api, scheduler, bench0, ...) runs that daemon
under a profiler of every thread and prints the top of its profile; the
pstats file is kept (``--profile-out``) for ``python -m pstats``. The
profile covers the window the CPU is measured in (from the first POST to
the last server seen ACTIVE), not the daemon's start-up. The profiler
slows the daemon: read the other figures of such a run as indicative
only.

``--all-in-one`` boots against ``nova-lite-all`` instead (``boot_aio``):
one process on SQLite and the in-process transport, its CPU per boot
reported as ``all``.

Repeat with --runs and the medians are reported, since this machine is
shared and noisy. Example:

    tools/bench_boot.py --servers 300 --clients 8 --nodes 100 --runs 3
"""

import argparse
import datetime
import os
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import sqlalchemy as sa  # noqa: E402

import boot_aio  # noqa: E402  (tools/, beside this script)
import boot_metrics  # noqa: E402
from keepalive_client import KeepAliveClient  # noqa: E402
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
        client = KeepAliveClient(api.endpoint, api.token)
        try:
            while True:
                with lock:
                    index = next(names, None)
                if index is None:
                    return
                t0 = time.time()
                status, _, body = client.post('/servers', {'server': {
                    'name': 'bench-%d' % index, 'imageRef': image,
                    'flavorRef': 'bench'}})
                if status != 202:
                    raise RuntimeError('boot failed: %s %s' % (status, body))
                with lock:
                    started[body['server']['id']] = t0
        finally:
            client.close()

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    first = time.time()
    for thread in threads:
        thread.start()
    return first, started, threads


def _watch(engine, threads, servers, timeout):
    """Wait until every server is ACTIVE; return {uuid: when it was}."""
    query = sa.text("SELECT uuid, vm_state, updated_at FROM instances "
                    "WHERE deleted = 0")
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            with engine.connect() as conn:
                rows = conn.execute(query).all()
            errors = [r.uuid for r in rows if r.vm_state == 'error']
            if errors:
                with engine.connect() as conn:
                    faults = conn.execute(sa.text(
                        'SELECT message FROM instance_faults WHERE '
                        'instance_uuid = :uuid'), {'uuid': errors[0]}).all()
                raise RuntimeError('servers in ERROR: %s (first: %s)' % (
                    errors[:5], [f.message for f in faults]))
            active = {r.uuid: r.updated_at for r in rows
                      if r.vm_state == 'active'}
            if len(active) >= servers:
                break
            time.sleep(0.5)
    finally:
        engine.dispose()  # its connection is not left to count as busy
    for thread in threads:
        thread.join()
    if len(active) < servers:
        raise RuntimeError('%d of %d servers ACTIVE after %ss' % (
            len(active), servers, timeout))
    return {uuid: launched.replace(tzinfo=datetime.timezone.utc).timestamp()
            for uuid, launched in active.items()}


def _rpc_messages(deploy):
    """(total messages, {daemon: [counts per process]}) from the daemons'
    stop logs."""
    by_daemon = boot_metrics.last_logged(deploy, STATS_LINE)
    total = 0
    for processes in by_daemon.values():
        for counts in processes:
            user = counts.get('user', {})
            total += (2 * user.get('call', 0) + user.get('cast', 0)
                      + user.get('fanout', 0))
    return total, by_daemon


def _daemon_defaults(args):
    options = {'debug': 'false'}
    if args.executor_threads:
        options['executor_thread_pool_size'] = args.executor_threads
    return options


def _daemon_env(args, workdir):
    env = {'*': {'NOVA_LITE_SQL_STATS': '1'}}
    if args.profile:
        env[args.profile] = {'NOVA_LITE_PROFILE': os.path.join(
            workdir, '%s.pstats' % args.profile)}
    return env


def _deployment(args, workdir):
    per_compute = max(1, args.nodes // args.computes)
    computes = {'bench%d' % i: {'node_count': per_compute, 'vcpus': 64,
                                'memory_mb': 262144, 'local_gb': 4000}
                for i in range(args.computes)}
    conf = {'DEFAULT': _daemon_defaults(args),
            'conductor': {'workers': args.conductor_workers},
            'api': {'workers': args.api_workers}}
    for section, name, value in args.set:
        conf.setdefault(section, {})[name] = value
    return deployment.Deployment(
        workdir, backend=args.backend, computes=computes, conf=conf,
        env=_daemon_env(args, workdir))


def _option(text):
    """``SECTION.NAME=VALUE`` -> (section, name, value)."""
    where, sep, value = text.partition('=')
    section, dot, name = where.rpartition('.')
    if not (sep and dot and section and name):
        raise argparse.ArgumentTypeError(
            'expected SECTION.NAME=VALUE, got %r' % text)
    return section, name, value


def _window_sample(deploy, pg):
    """(CPU, context switches, machine) so far, taken together."""
    cpu = boot_metrics.cpu_sample(deploy, pg)
    return (cpu, boot_metrics.switch_sample(cpu),
            boot_metrics.machine_sample())


def _window_used(before, after):
    """{'cpu': {group: s}, 'switches': {group: n}, 'machine': {...}}."""
    return {'cpu': boot_metrics.used_between(before[0], after[0]),
            'switches': boot_metrics.used_between(before[1], after[1]),
            'machine': boot_metrics.machine_used(before[2], after[2])}


def _measure(args, deploy):
    """Boot, watch; (first POST, {uuid: POSTed}, {uuid: ACTIVE}, what
    ``_window_used`` gives, database transactions before)."""
    api = deploy.api.as_user('bench:bench')
    image = _setup(deploy)
    engine = boot_metrics.bench_engine(deploy.database.url)
    pg = engine if args.backend == 'postgresql' else None
    xacts = boot_metrics.pg_transactions(pg, deploy.database.name) if pg \
        else None
    before = _window_sample(deploy, pg)
    boot_metrics.profile_window(deploy, args.profile)
    first, started, threads = _boot_all(api, image, args.servers,
                                        args.clients)
    try:
        active = _watch(engine, threads, args.servers, args.timeout)
        used = _window_used(before, _window_sample(deploy, pg))
        boot_metrics.profile_window(deploy, args.profile)
    finally:
        engine.dispose()
    return first, started, active, used, xacts


def _after_stop(args, deploy, xacts_before):
    """What the daemons' stop left: RPC messages, SQL counts, database
    transactions (their backends flushed their statistics on exit), and
    the profile's report."""
    messages, by_daemon = _rpc_messages(deploy)
    sql = boot_metrics.sql_counts(deploy)
    xacts = None
    if xacts_before is not None:
        engine = boot_metrics.bench_engine(deploy.database.url)
        try:
            xacts = boot_metrics.pg_transactions(
                engine, deploy.database.name) - xacts_before
        finally:
            engine.dispose()
    report = None
    if args.profile:
        path = os.path.join(deploy.workdir, '%s.pstats' % args.profile)
        if os.path.exists(path):
            shutil.copy(path, args.profile_out)
            report = boot_metrics.profile_report(args.profile_out)
    return messages, by_daemon, sql, xacts, report


def run_once(args, workdir):
    deploy = _deployment(args, workdir)
    xacts_before = None
    try:
        # Inside the try: daemons that did start are stopped and the
        # database and vhost dropped even if another never got ready.
        deploy.start()
        first, started, active, used, xacts_before = _measure(args,
                                                              deploy)
    finally:
        codes = deploy.stop()
        try:
            messages, by_daemon, sql, xacts, report = _after_stop(
                args, deploy, xacts_before)
        finally:
            deploy.cleanup()
    cpu = used['cpu']
    if args.verbose:
        print('RPC messages sent, by daemon: %s' % by_daemon)
        print('SQL by daemon: %s' % sql)
        print('CPU seconds by process: %s' % {
            k: round(v, 2) for k, v in sorted(cpu.items())})
        print('Context switches by process: %s' % dict(
            sorted(used['switches'].items())))
    if report:
        print('profile of %s (kept in %s):\n%s' % (
            args.profile, args.profile_out, report))
    if set(codes.values()) != {0}:
        print('warning: unclean exits %s' % codes, file=sys.stderr)
    latencies = [active[uuid] - started[uuid] for uuid in active]
    elapsed = max(active.values()) - first
    statements, transactions = boot_metrics.sql_user_totals(sql)
    per_boot = 1.0 / args.servers
    cpu_ms = _per_boot_by_kind(cpu, 1000 * per_boot)
    switches = _per_boot_by_kind(used['switches'], per_boot)
    machine = used['machine']
    return {'boots_per_s': args.servers / elapsed,
            'p50_ms': 1000 * _percentile(latencies, 50),
            'p99_ms': 1000 * _percentile(latencies, 99),
            'rpc_per_boot': messages * per_boot,
            'sql_per_boot': statements * per_boot,
            'xact_per_boot': transactions * per_boot,
            'db_xact_per_boot': (xacts * per_boot if xacts is not None
                                 else None),
            'cpu_ms': cpu_ms,
            'switches': switches,
            # What the counted processes left of the machine's busy time
            # (this tool's clients, kernel work on nobody's account, other
            # users), and its idle share, over the same window.
            'uncounted_ms': max(0.0, 1000 * machine['busy'] * per_boot
                                - cpu_ms['total']),
            'idle_pct': 100.0 * machine['idle'] / max(
                machine['busy'] + machine['idle'], 1e-9)}


def _per_boot_by_kind(used, scale):
    """{kind: amount * scale} of {process: amount}, with the total."""
    per_kind = {kind: amount * scale for kind, amount in
                boot_metrics.by_kind(used).items()}
    per_kind['total'] = sum(per_kind.values())
    return per_kind


def run_all_in_one(args, workdir):
    """One run against nova-lite-all (``boot_aio``): its CPU is reported
    as 'all'; it has no PostgreSQL nor RabbitMQ to count."""
    started, active, first, cpu, counts = boot_aio.run_once(
        args, workdir, _boot_all)
    messages, statements, transactions = counts
    latencies = [active[uuid] - started[uuid] for uuid in active]
    per_boot = 1.0 / args.servers
    cpu_ms = 1000 * cpu * per_boot
    return {'boots_per_s': args.servers / (max(active.values()) - first),
            'p50_ms': 1000 * _percentile(latencies, 50),
            'p99_ms': 1000 * _percentile(latencies, 99),
            'rpc_per_boot': messages * per_boot,
            'sql_per_boot': statements * per_boot,
            'xact_per_boot': transactions * per_boot,
            # SQLite keeps no count of its own.
            'db_xact_per_boot': None,
            'cpu_ms': {'all': cpu_ms, 'total': cpu_ms}}


CPU_ORDER = ('api', 'conductor', 'scheduler', 'compute', 'postgresql',
             'rabbitmq', 'all', 'total')


def _kinds_line(per_kind, form='%.1f'):
    return ', '.join(('%s ' + form) % (kind, per_kind[kind])
                     for kind in CPU_ORDER if kind in per_kind)


def _median_by_kind(results, key):
    """{kind: median over the runs} of each run's ``result[key]``."""
    return {kind: statistics.median(r[key].get(kind, 0) for r in results)
            for kind in CPU_ORDER if any(kind in r[key] for r in results)}


def _machine_line(switches, uncounted_ms, idle_pct):
    """The context switches and the machine's share, if measured."""
    if switches is None:
        return ''
    return ('context switches/boot: %s; the machine: %.1f ms/boot busy '
            'beyond the processes counted, %.0f %% idle' % (
                _kinds_line(switches, '%.0f'), uncounted_ms, idle_pct))


def _database_count(xacts, unit=''):
    """The database's own transaction count, where it keeps one."""
    if xacts is None:
        return ''
    return ' (database: %.1f%s)' % (xacts, unit)


def _print_run(run, result):
    machine = _machine_line(result.get('switches'),
                            result.get('uncounted_ms'),
                            result.get('idle_pct'))
    print('run %d: %.1f boots/s, p50 %.0f ms, p99 %.0f ms, '
          '%.1f RPC messages/boot, %.1f SQL statements and %.1f '
          'transactions/boot%s; CPU ms/boot: %s%s' % (
              run + 1, result['boots_per_s'], result['p50_ms'],
              result['p99_ms'], result['rpc_per_boot'],
              result['sql_per_boot'], result['xact_per_boot'],
              _database_count(result['db_xact_per_boot'],
                              ' transactions/boot'),
              _kinds_line(result['cpu_ms']),
              '; ' + machine if machine else ''),
          flush=True)


def _print_medians(args, results):
    def med(key):
        return statistics.median(r[key] for r in results)

    database = (None if any(r['db_xact_per_boot'] is None for r in results)
                else med('db_xact_per_boot'))
    where = ('nova-lite-all' if args.all_in_one else
             '%s, %d conductor and %d API worker(s)' % (
                 args.backend, args.conductor_workers, args.api_workers))
    print('median of %d runs (%d servers, %d clients, %d nodes, %s): '
          '%.1f boots/s sustained, API-to-ACTIVE p50 %.0f ms, p99 %.0f ms, '
          '%.1f RPC messages per boot, %.1f SQL statements and %.1f '
          'transactions per boot%s' % (
              args.runs, args.servers, args.clients, args.nodes, where,
              med('boots_per_s'),
              med('p50_ms'),
              med('p99_ms'), med('rpc_per_boot'), med('sql_per_boot'),
              med('xact_per_boot'), _database_count(database)))
    print('CPU per boot, ms (each the median of its own): %s' % (
        _kinds_line(_median_by_kind(results, 'cpu_ms'))))
    if all('switches' in r for r in results):
        print('Medians, %s' % _machine_line(
            _median_by_kind(results, 'switches'), med('uncounted_ms'),
            med('idle_pct')))


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
    parser.add_argument('--conductor-workers', type=int, default=1,
                        help='[conductor] workers of the conductor')
    parser.add_argument('--api-workers', type=int, default=1,
                        help='[api] workers of the API')
    parser.add_argument('--verbose', action='store_true',
                        help='print each daemon\'s RPC message and SQL '
                             'counts and CPU')
    parser.add_argument('--profile', metavar='DAEMON',
                        help='profile this daemon (api, conductor, '
                             'scheduler, bench0, ...) and print the top '
                             'of its profile')
    parser.add_argument('--profile-out', default='bench-profile.pstats',
                        help='where to keep the pstats file of --profile '
                             '(the last run\'s)')
    parser.add_argument('--all-in-one', action='store_true',
                        help='boot against nova-lite-all (SQLite, the '
                             'in-process transport, one compute with '
                             '--nodes nodes) instead of the daemons')
    parser.add_argument('--set', type=_option, action='append', default=[],
                        metavar='SECTION.NAME=VALUE',
                        help='an option of every daemon, for example '
                             'scheduler.change_notice_delay=0.2 '
                             '(repeatable; not with --all-in-one)')
    args = parser.parse_args()
    if args.all_in_one and args.set:
        parser.error('--set gives the daemons an option; nova-lite-all '
                     'is configured by the tool (tools/boot_aio.py)')
    results = []
    run_one = run_all_in_one if args.all_in_one else run_once
    for run in range(args.runs):
        with tempfile.TemporaryDirectory(prefix='nl-bench-') as workdir:
            result = run_one(args, workdir)
        results.append(result)
        _print_run(run, result)
    _print_medians(args, results)


if __name__ == '__main__':
    main()
