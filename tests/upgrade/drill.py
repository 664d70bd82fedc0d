"""The rolling upgrade drill (tools/upgrade-drill).

Runs the old release's daemons (conductor, scheduler, two computes with
many fake nodes, two APIs) on RabbitMQ and PostgreSQL under a steady
workload, then upgrades them one kind at a time in the order of seed 003:
new ``db sync`` (expand-only), conductor, scheduler, each compute, the APIs
-- all with [upgrade_levels] pinned to the old release -- and finally lifts
the pins. Each phase reports requests, failures, latency, the message
versions the new daemons sent and the objects they backported. Exits 1 if
any request failed, any server ended outside ACTIVE or deleted, a
pinned daemon sent a message above its pin (``pin_check``), or no resize
or migration of the workload was accepted (the workload moves servers
once the APIs are upgraded; a pinned API refuses cleanly, and once the
pins are lifted every move must work).
"""

import argparse
import datetime
import os
import subprocess
import sys
import tempfile
import time

from tests import db_fixtures
from tests.functional import deployment
from tests.upgrade import pin_check
from tests.upgrade import report
from tests.upgrade import sides
from tests.upgrade import workload

API_PATH = '/v2.1'


class Cluster:
    """Config files and daemons of one drill."""

    def __init__(self, workdir, args):
        self.workdir = workdir
        self.args = args
        self.database = db_fixtures.ScratchDatabase('postgresql')
        self.vhost = deployment.RabbitVhost()
        self.daemons = {}        # name -> Daemon
        self.retired = []        # daemons already stopped (their logs)
        self.common = os.path.join(workdir, 'common.conf')
        self.pins = os.path.join(workdir, 'pins.conf')

    def setup(self, pins):
        self.database.create()
        transport = self.vhost.create()
        _write(self.common, {
            'DEFAULT': {'transport_url': transport,
                        'state_path': os.path.join(self.workdir, 'state'),
                        'report_interval': 2, 'service_down_time': 20,
                        'rpc_response_timeout': 60,
                        'graceful_shutdown_timeout': 60,
                        'rpc_stats_log_interval': 2,
                        # Computes read and write their nodes through the
                        # conductor every few seconds: an old compute's
                        # reads are answered in its own object versions.
                        'update_resources_interval': 5},
            'database': {'connection': self.database.url},
            'api': {'rate_limit': 'false'},
            # The workload measures upgrades, not quotas (releases without
            # quotas ignore the section).
            'quota': {'instances': -1, 'cores': -1, 'ram': -1}})
        _write(self.pins, {'upgrade_levels': pins})
        for index in (1, 2):
            _write(self._host_conf('compute%d' % index), {
                'DEFAULT': {'host': 'compute%d' % index},
                'fake_driver': {'node_count': self.args.nodes}})

    def _host_conf(self, host):
        return os.path.join(self.workdir, '%s.conf' % host)

    def start(self, side, role, name, pinned, port=None, host=None):
        """Start daemon ``name`` (role: conductor|scheduler|compute|api)
        from ``side``, as service ``host`` if given; wait until it is
        READY."""
        argv = [side.script('nova-lite-%s' % role),
                '--config-file', self.common]
        if pinned:
            argv += ['--config-file', self.pins]
        if role == 'compute':
            argv += ['--config-file', self._host_conf(name)]
        elif host is not None:
            _write(self._host_conf(host), {'DEFAULT': {'host': host}})
            argv += ['--config-file', self._host_conf(host)]
        if port is not None:
            listen = os.path.join(self.workdir, 'api-%d.conf' % port)
            _write(listen, {'DEFAULT': {'osapi_compute_listen_port': port}})
            argv += ['--config-file', listen]
        label = '%s-%s-%d' % (name, side.label, len(self.retired) +
                              len(self.daemons))
        daemon = deployment.Daemon(label, argv, self.workdir)
        daemon.side = side
        daemon.role = role
        daemon.pinned = pinned
        daemon.started_at = datetime.datetime.now()
        daemon.stopped_at = None
        daemon.start()
        daemon.wait_ready()
        self.daemons[name] = daemon
        return daemon

    def stop(self, name):
        daemon = self.daemons.pop(name)
        code = daemon.stop(timeout=90)
        daemon.stopped_at = datetime.datetime.now()
        self.retired.append(daemon)
        if code != 0:
            raise RuntimeError('%s exited %s:\n%s' % (daemon.name, code,
                                                      daemon.tail()))

    def runs(self, old_side):
        """pin_check.DaemonRun of every daemon started so far."""
        return [pin_check.DaemonRun(d.name, d.role, d.side is old_side,
                                    d.pinned, d.started_at, d.stopped_at,
                                    d.log)
                for d in list(self.daemons.values()) + self.retired]

    def new_logs(self, new_side):
        return [d.log for d in list(self.daemons.values()) + self.retired
                if d.side is new_side]

    def cleanup(self):
        for daemon in self.daemons.values():
            daemon.kill()
        try:
            self.vhost.delete()
        finally:
            self.database.drop()


def _run(argv):
    """Run a command; on failure raise with what it printed."""
    result = subprocess.run(argv, capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError('%s failed (%d):\n%s%s' % (
            ' '.join(argv), result.returncode, result.stdout,
            result.stderr[-3000:]))
    return result.stdout


def _write(path, sections):
    with open(path, 'w') as conf:
        for section, options in sections.items():
            conf.write('[%s]\n' % section)
            for key, value in options.items():
                conf.write('%s = %s\n' % (key, value))


def _pins(old, mode):
    """[upgrade_levels] for the new side: "auto", or the old release by
    name when it is one, else its RPC versions."""
    if mode == 'auto':
        return {svc: 'auto' for svc in ('conductor', 'scheduler', 'compute')}
    if old.release:
        return {svc: old.release for svc in ('conductor', 'scheduler',
                                             'compute')}
    return dict(old.rpc_versions)


class Drill:
    def __init__(self, args, old, new, workdir):
        self.args = args
        self.old = old
        self.new = new
        self.cluster = Cluster(workdir, args)
        self.phases = []
        self.current = None
        self.ports = {}
        self.old_endpoints = set()
        self.pool = None
        self.admin_pool = None

    def phase_name(self):
        return self.current.name if self.current else 'setup'

    def _begin(self, name):
        if self.current is not None:
            self.current.end = datetime.datetime.now()
        self.current = report.Phase(name)
        self.current.start = datetime.datetime.now()
        self.phases.append(self.current)
        print('== %s' % name, flush=True)

    def _no_old_api(self):
        """No endpoint of the old release serves (the workload's moves
        wait for that)."""
        return not self.old_endpoints.intersection(self._endpoints())

    def _endpoints(self):
        return ['http://127.0.0.1:%d%s' % (port, API_PATH)
                for port in self.ports.values()]

    def _start_old(self):
        c = self.cluster
        for role in ('conductor', 'scheduler'):
            c.start(self.old, role, role, pinned=False)
        for host in ('compute1', 'compute2'):
            c.start(self.old, 'compute', host, pinned=False)
        for api in ('api1', 'api2'):
            self.ports[api] = deployment.free_port()
            c.start(self.old, 'api', api, pinned=False, port=self.ports[api])
        self.old_endpoints.update(self._endpoints())

    def _image_and_flavor(self):
        out = _run([self.old.script('nova-lite-manage'), '--config-file',
                    self.cluster.common, 'image', 'create', 'cirros',
                    '--disk-format', 'qcow2'])
        admin = workload.ApiPool(self._endpoints(), 'admin:admin')
        for name, ram in (('drill', 256), ('drill2', 512)):
            status, body = admin.request('POST', '/flavors', {'flavor': {
                'name': name, 'id': name, 'ram': ram, 'vcpus': 1,
                'disk': 1}})
            if status != 200:
                raise RuntimeError('flavor create: %s %s' % (status, body))
        return out.strip(), 'drill'

    def _swap(self, role, name, pinned, side, overlap):
        """Replace daemon ``name``: start the new one first when both may
        consume the same queue (conductor, scheduler), else stop first.

        The one started first runs as another service host, as a second
        machine would: under the same host it would take over the old
        one's service record, so an ``auto`` pin would rise (its version
        the only one left) while the old daemon still consumes the
        topic's messages. The old record stays until it is seen down."""
        c = self.cluster
        if overlap:
            old_daemon = c.daemons.pop(name)
            c.start(side, role, name, pinned,
                    host='%s-%s' % (name, side.label))
            c.daemons['%s-retiring' % name] = old_daemon
            c.stop('%s-retiring' % name)
        else:
            c.stop(name)
            c.start(side, role, name, pinned)

    def _swap_api(self, name, pinned, side):
        c = self.cluster
        port = deployment.free_port()
        old_daemon = c.daemons.pop(name)
        c.start(side, 'api', name, pinned, port=port)
        self.ports[name] = port
        self.pool.set_endpoints(self._endpoints())
        self.admin_pool.set_endpoints(self._endpoints())
        c.daemons['%s-retiring' % name] = old_daemon
        time.sleep(1)   # let requests already sent to the old one finish
        c.stop('%s-retiring' % name)

    def _hold(self):
        time.sleep(self.args.phase_seconds)

    def _db_sync(self):
        _run([self.new.script('nova-lite-manage'), '--config-file',
              self.cluster.common, 'db', 'sync'])

    def _upgrade_steps(self):
        new = self.new
        yield 'db sync (new)', self._db_sync
        yield 'conductor', lambda: self._swap('conductor', 'conductor',
                                              True, new, overlap=True)
        yield 'scheduler', lambda: self._swap('scheduler', 'scheduler',
                                              True, new, overlap=True)
        for host in ('compute1', 'compute2'):
            yield host, (lambda h=host: self._swap('compute', h, True, new,
                                                   overlap=False))
        yield 'api', self._upgrade_apis
        yield 'pins lifted', self._lift_pins

    def _upgrade_apis(self):
        for api in ('api1', 'api2'):
            self._swap_api(api, True, self.new)
        self._touch_aggregate()

    def _touch_aggregate(self):
        """An operator's aggregate change (the new API has aggregates): it
        reaches the schedulers as update_provider_states with aggregate
        uuids, sent at 1.0 while pinned and 1.1 once the pins are lifted."""
        admin = workload.ApiPool(self._endpoints(), 'admin:admin')
        phase = self.phase_name()
        name = 'drill-%s' % phase.replace(' ', '-')
        steps = [('POST', '/os-aggregates', {'aggregate': {'name': name}})]
        status, body = self._record(admin, phase, steps[0])
        if status != 200:
            return
        path = '/os-aggregates/%s/action' % body['aggregate']['id']
        for action in ({'add_host': {'host': 'compute1'}},
                       {'remove_host': {'host': 'compute1'}}):
            self._record(admin, phase, ('POST', path, action))
        self._record(admin, phase, (
            'DELETE', '/os-aggregates/%s' % body['aggregate']['id'], None),
            ok=(200, 202, 204))

    def _lift_pins(self):
        for role in ('conductor', 'scheduler'):
            self._swap(role, role, False, self.new, overlap=True)
        for host in ('compute1', 'compute2'):
            self._swap('compute', host, False, self.new, overlap=False)
        for api in ('api1', 'api2'):
            self._swap_api(api, False, self.new)
        self._touch_aggregate()

    def _record(self, pool, phase, step, ok=(200,)):
        """Send one admin request and record it like the workload's."""
        method, path, body = step
        started = time.monotonic()
        try:
            status, payload = pool.request(method, path, body)
        except (workload.Unavailable, OSError) as exc:
            status, payload = type(exc).__name__, str(exc)
        self.load.records.append(workload.Record(
            phase, 'aggregate', status, time.monotonic() - started,
            status not in ok))
        return status, payload

    def run(self):
        c = self.cluster
        c.setup(_pins(self.old, self.args.pins))
        _run([self.old.script('nova-lite-manage'), '--config-file',
              c.common, 'db', 'sync'])
        self._start_old()
        image, flavor = self._image_and_flavor()
        self.pool = workload.ApiPool(self._endpoints(), 'drill:drill')
        self.admin_pool = workload.ApiPool(self._endpoints(), 'admin:admin')
        moves = (self.admin_pool, 'drill2', self._no_old_api)
        load = workload.Workload(self.pool, image, flavor,
                                 self.args.workers, self.phase_name,
                                 moves=moves)
        self.load = load
        self._begin('old release')
        load.start()
        self._hold()
        for name, action in self._upgrade_steps():
            self._begin(name)
            action()
            self._hold()
        self._begin('drain')
        load.stop()
        self.current.end = datetime.datetime.now()
        return load

    def measure(self):
        logs = self.cluster.new_logs(self.new)
        for phase in self.phases:
            phase.sent = report.delta(logs, 'sent', phase.start, phase.end)
            phase.backported = report.delta(logs, 'backported', phase.start,
                                            phase.end)

    def bad_servers(self):
        """Servers left in any state but ACTIVE or deleted."""
        rows = self.cluster_sql(
            "SELECT uuid, vm_state, task_state FROM instances "
            "WHERE deleted = 0 AND vm_state <> 'active'")
        return [tuple(row) for row in rows]

    def cluster_sql(self, statement):
        import sqlalchemy as sa
        engine = sa.create_engine(self.cluster.database.url)
        try:
            with engine.connect() as conn:
                return conn.execute(sa.text(statement)).all()
        finally:
            engine.dispose()

    def stop_all(self):
        c = self.cluster
        for name in ('api1', 'api2', 'compute1', 'compute2', 'scheduler',
                     'conductor'):
            if name in c.daemons:
                c.stop(name)


def _parse(argv):
    parser = argparse.ArgumentParser(
        prog='upgrade-drill', description=__doc__.split('\n\n')[0])
    parser.add_argument('--from', dest='from_ref', default='acorn',
                        help='old side: a release name (releases.json) or '
                             'a git ref (default: acorn)')
    parser.add_argument('--to', dest='to_ref', default=sides.WORKING_TREE,
                        help='new side: a git ref, a release, or '
                             '"working-tree" (default: the installed '
                             'working tree)')
    parser.add_argument('--nodes', type=int, default=20,
                        help='fake nodes per compute (default 20)')
    parser.add_argument('--workers', type=int, default=4,
                        help='concurrent workload loops (default 4)')
    parser.add_argument('--phase-seconds', type=float, default=10,
                        help='workload time in each phase (default 10)')
    parser.add_argument('--pins', choices=['release', 'auto'],
                        default='release',
                        help='pin the new daemons to the old release '
                             '(default) or to "auto" (the oldest running '
                             'service decides)')
    parser.add_argument('--keep', action='store_true',
                        help='keep the work directory (daemon logs)')
    return parser.parse_args(argv)


def main(argv=None):
    args = _parse(sys.argv[1:] if argv is None else argv)
    old = sides.build(args.from_ref)
    new = sides.build(args.to_ref)
    print('old: %s %s; new: %s %s' % (old.label, old.rpc_versions,
                                      new.label, new.rpc_versions),
          flush=True)
    workdir = tempfile.mkdtemp(prefix='nl-drill-')
    drill = Drill(args, old, new, workdir)
    try:
        load = drill.run()
        drill.measure()
        bad = drill.bad_servers()
        drill.stop_all()
        above_pins = pin_check.violations(
            drill.cluster.runs(old), old.rpc_versions, args.pins)
    except Exception:
        for daemon in list(drill.cluster.daemons.values()):
            print('---- %s\n%s' % (daemon.name, daemon.tail(40)))
        raise
    finally:
        drill.cluster.cleanup()
        if not args.keep:
            subprocess.run(['rm', '-rf', workdir])
        else:
            print('work directory kept: %s' % workdir)
    print(report.render(drill.phases, load.records))
    failed = sum(r.failed for r in load.records)
    print('requests: %d, failed: %d, API failovers: %d, servers cycled: %d, '
          'stuck: %d, left outside ACTIVE/deleted: %d' % (
              len(load.records), failed, drill.pool.failovers,
              len(load.created), len(load.stuck), len(bad)))
    for item in load.stuck + bad:
        print('    %s' % (item,))
    print('messages sent above their pin by pinned daemons: %d' %
          len(above_pins))
    for line in above_pins:
        print('    %s' % line)
    moved = load.moved()
    print('moves (resize, migrate) accepted and confirmed: %d; refused '
          'cleanly while not every service could do them: %d' % (
              moved, sum(r.op == 'refused' for r in load.records)))
    if not moved:
        print('    no move was accepted: once the pins are lifted every '
              'server should be resized and migrated')
    return 1 if failed or load.stuck or bad or above_pins or not moved else 0
