"""tools/bench_boot.py --all-in-one: the boot benchmark against
``nova-lite-all``, the four services in one process on the embedded
defaults (an SQLite file, the in-process ``local://`` transport, one fake
compute with ``--nodes`` nodes).

The servers are booted through the API as against the daemons; they are
watched by reading the SQLite file (read-only; the embedded database runs
in WAL mode, so the reads do not hold up its writer), and the CPU per boot
is that of the one process (utime + stime from ``/proc``, its threads
included) between the first POST and the last server ACTIVE. RPC
messages and SQL counts are those the process logs when it stops.
"""

import ast
import datetime
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time

import boot_metrics  # tools/, beside this module
from tests.functional import deployment

STARTUP_TIMEOUT = 60
STATS_LINE = re.compile(r'RPC statistics: (\{.*\})')


def _conf(workdir, port, nodes):
    return {
        'DEFAULT': {'state_path': os.path.join(workdir, 'state'),
                    'osapi_compute_listen': '127.0.0.1',
                    'osapi_compute_listen_port': port,
                    'debug': 'false',
                    'log_file': os.path.join(workdir, 'all.log')},
        'api': {'rate_limit': 'false'},
        'quota': {'instances': -1, 'cores': -1, 'ram': -1},
        'fake_driver': {'node_count': nodes, 'vcpus': 64,
                        'memory_mb': 262144, 'local_gb': 4000},
    }


def _write_conf(workdir, sections):
    path = os.path.join(workdir, 'nova_lite.conf')
    with open(path, 'w') as conf:
        for section, options in sections.items():
            conf.write('[%s]\n' % section)
            for key, value in options.items():
                conf.write('%s = %s\n' % (key, value))
            conf.write('\n')
    return path


def _start(workdir, conf_file, port):
    env = dict(os.environ, NOVA_LITE_SQL_STATS='1')
    proc = subprocess.Popen(
        [sys.executable, '-c', 'from nova_lite.cmd.all import main; main()',
         '--config-file', conf_file],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
        cwd=workdir)
    api = deployment.ApiClient('http://127.0.0.1:%d/v2.1' % port,
                               token='admin:admin')
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError('nova-lite-all exited with %s; see %s'
                               % (proc.returncode, workdir))
        try:
            if api.get('/flavors')[0] == 200:
                return proc, api
        except OSError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError('nova-lite-all did not answer in %ss'
                       % STARTUP_TIMEOUT)


def _setup(api):
    status, _, body = api.post('/flavors', {'flavor': {
        'name': 'bench', 'id': 'bench', 'ram': 256, 'vcpus': 1, 'disk': 1}})
    if status != 200:
        raise RuntimeError('flavor create failed: %s %s' % (status, body))
    images = api.get('/images')[2]['images']
    return images[0]['id']


def _watch(db_path, threads, servers, timeout):
    """{uuid: when it was saved ACTIVE} once every server is."""
    conn = sqlite3.connect('file:%s?mode=ro' % db_path, uri=True)
    try:
        deadline = time.monotonic() + timeout
        active = {}
        while time.monotonic() < deadline:
            rows = conn.execute(
                'SELECT uuid, vm_state, updated_at FROM instances '
                'WHERE deleted = 0').fetchall()
            if any(state == 'error' for _u, state, _t in rows):
                raise RuntimeError('servers in ERROR')
            active = {uuid: at for uuid, state, at in rows
                      if state == 'active'}
            if len(active) >= servers:
                break
            time.sleep(0.5)
    finally:
        conn.close()
    for thread in threads:
        thread.join()
    if len(active) < servers:
        raise RuntimeError('%d of %d servers ACTIVE after %ss' % (
            len(active), servers, timeout))
    return {uuid: datetime.datetime.fromisoformat(at).replace(
                tzinfo=datetime.timezone.utc).timestamp()
            for uuid, at in active.items()}


def _cpu(pid):
    return sum(cpu for _pid, cpu in _process_cpu(pid).items())


def _process_cpu(pid):
    processes = boot_metrics._all_processes()
    return {p: processes[p][2] for p in boot_metrics._tree(pid, processes)
            if p in processes}


def _stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


def _last_logged(log_path, pattern):
    """The dict the last line matching ``pattern`` logged, or {}."""
    found = {}
    if os.path.exists(log_path):
        with open(log_path) as log:
            for line in log:
                match = pattern.search(line)
                if match:
                    found = ast.literal_eval(match.group(1))
    return found


def _logged_counts(workdir):
    """(RPC messages, SQL statements, SQL transactions) the process
    logged at its stop for user requests (a call counts twice)."""
    log_path = os.path.join(workdir, 'all.log')
    rpc = _last_logged(log_path, STATS_LINE).get('user', {})
    sql = _last_logged(log_path, boot_metrics.SQL_LINE)
    messages = (2 * rpc.get('call', 0) + rpc.get('cast', 0)
                + rpc.get('fanout', 0))
    statements, transactions = boot_metrics.sql_user_totals(
        {'all': [sql]})
    return messages, statements, transactions


def run_once(args, workdir, boot_all):
    """One run: ({uuid: POSTed}, {uuid: ACTIVE}, first POST, CPU
    seconds, (RPC messages, SQL statements, SQL transactions))."""
    port = deployment.free_port()
    conf_file = _write_conf(workdir, _conf(workdir, port, args.nodes))
    proc, admin = _start(workdir, conf_file, port)
    try:
        image = _setup(admin)
        api = admin.as_user('bench:bench')
        cpu_before = _cpu(proc.pid)
        first, started, threads = boot_all(api, image, args.servers,
                                           args.clients)
        active = _watch(os.path.join(workdir, 'state', 'nova_lite.sqlite'),
                        threads, args.servers, args.timeout)
        cpu = _cpu(proc.pid) - cpu_before
    finally:
        code = _stop(proc)
    if code != 0:
        print('warning: nova-lite-all exited with %s' % code,
              file=sys.stderr)
    return started, active, first, cpu, _logged_counts(workdir)
