"""What tools/bench_boot.py measures besides time: CPU, SQL and profiles.

* CPU: utime + stime from ``/proc/<pid>/stat`` before and after the
  boots, for each daemon's process tree (the process it started and any
  worker it forked), for the PostgreSQL backends serving the bench's
  database (found in ``pg_stat_activity`` by database name, the bench's
  own connections excluded; the cluster's shared background processes,
  WAL writer and checkpointer, are not counted) and for RabbitMQ's
  ``beam.smp`` (the whole broker: on a shared machine it includes other
  users' traffic on other virtual hosts).
* SQL: the daemons' own counts (``nova_lite.diagnostics``), statements
  and transactions done on behalf of the boots, and PostgreSQL's
  ``pg_stat_database`` transactions of the whole database as a cross-check.
* Context switches: voluntary and involuntary, summed over every thread
  (``/proc/<pid>/task/*/status``) of the same processes as the CPU.
* The machine: its busy and idle CPU time (``/proc/stat``) over the
  same window, so that what the counted processes leave (the tool's own
  clients, the kernel's work for nobody counted, other users, idle
  time) shows.
* Profiles: the pstats file a daemon wrote under ``--profile``, of the
  measured window (``profile_window``).
"""

import ast
import io
import os
import pstats
import re

import sqlalchemy as sa

CLOCK_TICK = os.sysconf('SC_CLK_TCK')
APPLICATION_NAME = 'nl-bench'
SQL_LINE = re.compile(r'SQL statistics: (\{.*\})')


def bench_engine(url):
    """An engine for the bench's own reads, tagged so that the CPU of its
    backend is not counted as nova_lite's."""
    if not str(url).startswith('postgresql'):
        return sa.create_engine(url)
    return sa.create_engine(url, connect_args={
        'application_name': APPLICATION_NAME})


def _stat(pid):
    """(ppid, comm, cpu seconds) of ``pid``, or None if it is gone."""
    try:
        with open('/proc/%d/stat' % pid) as stat:
            data = stat.read()
    except OSError:
        return None
    # comm may hold spaces: split after its closing parenthesis.
    comm = data[data.index('(') + 1:data.rindex(')')]
    fields = data[data.rindex(')') + 2:].split()
    utime, stime = int(fields[11]), int(fields[12])
    return int(fields[1]), comm, (utime + stime) / float(CLOCK_TICK)


def _all_processes():
    found = {}
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            stat = _stat(int(entry))
            if stat is not None:
                found[int(entry)] = stat
    return found


def _tree(root, processes):
    pids, todo = set(), [root]
    while todo:
        pid = todo.pop()
        pids.add(pid)
        todo.extend(p for p, (ppid, _c, _t) in processes.items()
                    if ppid == pid and p not in pids)
    return pids


def _pg_backends(engine, database):
    query = sa.text('SELECT pid FROM pg_stat_activity WHERE datname = :db '
                    'AND application_name != :me')
    with engine.connect() as conn:
        return {row.pid for row in conn.execute(
            query, {'db': database, 'me': APPLICATION_NAME})}


def pg_transactions(engine, database):
    """Transactions committed and rolled back in ``database`` so far."""
    query = sa.text('SELECT xact_commit + xact_rollback AS n '
                    'FROM pg_stat_database WHERE datname = :db')
    with engine.connect() as conn:
        return conn.execute(query, {'db': database}).scalar() or 0


def cpu_sample(deploy, engine):
    """{group: {pid: cpu seconds}}: every daemon (by name), 'postgresql'
    and 'rabbitmq'."""
    processes = _all_processes()
    sample = {}
    for daemon in deploy.daemons:
        if daemon.proc is not None:
            sample[daemon.name] = {
                pid: processes[pid][2]
                for pid in _tree(daemon.proc.pid, processes)
                if pid in processes}
    if engine is not None:
        sample['postgresql'] = {
            pid: processes[pid][2]
            for pid in _pg_backends(engine, deploy.database.name)
            if pid in processes}
    sample['rabbitmq'] = {pid: cpu for pid, (_pp, comm, cpu)
                          in processes.items() if comm == 'beam.smp'}
    return sample


def used_between(before, after):
    """{group: amount} between two samples of {group: {pid: amount so
    far}} (CPU seconds, context switches); a process that appeared in
    between counts from zero, one that ended is lost."""
    used = {}
    for group, pids in after.items():
        earlier = before.get(group, {})
        used[group] = sum(max(amount - earlier.get(pid, 0), 0)
                          for pid, amount in pids.items())
    return used


_SWITCHES = ('voluntary_ctxt_switches:', 'nonvoluntary_ctxt_switches:')


def _switches(pid, proc='/proc'):
    """Context switches of every thread of ``pid`` so far (a thread that
    ended took its own with it), or None if the process is gone."""
    try:
        tasks = os.listdir('%s/%d/task' % (proc, pid))
    except OSError:
        return None
    total = 0
    for task in tasks:
        try:
            with open('%s/%d/task/%s/status' % (proc, pid, task)) as status:
                total += sum(int(line.split()[1]) for line in status
                             if line.startswith(_SWITCHES))
        except OSError:
            pass  # the thread ended meanwhile
    return total


def switch_sample(cpu):
    """{group: {pid: context switches so far}} of the processes of a
    ``cpu_sample``."""
    sample = {}
    for group, pids in cpu.items():
        counts = ((pid, _switches(pid)) for pid in pids)
        sample[group] = {pid: n for pid, n in counts if n is not None}
    return sample


def machine_sample(path='/proc/stat'):
    """(busy, idle) CPU seconds of the whole machine so far. Idle counts
    time waiting for I/O too; guest time is already in user time."""
    with open(path) as stat:
        ticks = [int(v) for v in stat.readline().split()[1:9]]
    # user nice system idle iowait irq softirq steal
    idle = ticks[3] + ticks[4]
    return (sum(ticks) - idle) / CLOCK_TICK, idle / CLOCK_TICK


def machine_used(before, after):
    """{'busy': seconds, 'idle': seconds} between two machine samples."""
    return {'busy': after[0] - before[0], 'idle': after[1] - before[1]}


def daemon_kind(name):
    """The row a daemon's CPU is reported under."""
    for kind in ('api', 'conductor', 'scheduler'):
        if name.startswith(kind):
            return kind
    if name in ('postgresql', 'rabbitmq'):
        return name
    return 'compute'


def by_kind(used):
    totals = {}
    for name, seconds in used.items():
        kind = daemon_kind(name)
        totals[kind] = totals.get(kind, 0.0) + seconds
    return totals


PID = re.compile(r'^\S+ \S+ (\d+) ')


def last_logged(deploy, pattern):
    """{daemon name: [dict]}: per daemon, the last dict each of its
    processes (a daemon may fork several workers) logged on a line
    matching ``pattern``, whose group 1 is the dict."""
    found = {}
    for daemon in deploy.daemons:
        by_pid = {}
        with open(daemon.log) as log:
            for line in log:
                match = pattern.search(line)
                if match:
                    pid = PID.match(line)
                    by_pid[pid.group(1) if pid else None] = \
                        ast.literal_eval(match.group(1))
        found[daemon.name] = list(by_pid.values())
    return found


def sql_counts(deploy):
    """{daemon: [{'user'|'service': {key: n}}, one per process]} from the
    daemons' logs (the line logged at stop, with NOVA_LITE_SQL_STATS
    set)."""
    return last_logged(deploy, SQL_LINE)


def sql_user_totals(counts):
    """(statements, transactions) done for the boots, all daemons."""
    statements = transactions = 0
    for processes in counts.values():
        for origins in processes:
            user = origins.get('user', {})
            statements += user.get('statements', 0)
            transactions += (user.get('commits', 0)
                             + user.get('rollbacks', 0))
    return statements, transactions


def profile_window(deploy, name):
    """Open, then (called again) close the profile's window of daemon
    ``name`` (``nova_lite.diagnostics``: files beside its profile).
    Nothing without ``name``."""
    if not name:
        return
    path = os.path.join(deploy.workdir, '%s.pstats' % name)
    mark = path + ('.close' if os.path.exists(path + '.open') else '.open')
    with open(mark, 'w'):
        pass


def profile_report(path, limit=30):
    """The top of a pstats file, by own time and by cumulative time."""
    out = io.StringIO()
    stats = pstats.Stats(path, stream=out)
    stats.strip_dirs()
    for key in ('tottime', 'cumulative'):
        out.write('--- sorted by %s ---\n' % key)
        stats.sort_stats(key).print_stats(limit)
    return out.getvalue()
