"""The fault suite: a boot/delete workload while parts fail, one at a time.

    tools/fault-suite [--backend postgresql] [--workers 4] [--only NAME]

For each fault: the workload (boots and deletes; every other worker
also reboots, stops, starts, resizes and migrates) runs a few seconds,
the fault is injected and healed, the workload runs on until a boot
sent after the heal is ACTIVE (3 to 6 s) and stops; then the invariants
are checked and everything left is deleted. It prints a table
(requests, statuses, recovery time, each invariant) and exits 1 if any
invariant failed. Recovery time is from the failed part's return (for
a compute that does not return, from when it is seen down) to the first
server booted after it being seen ACTIVE.
"""

import argparse
import collections
import concurrent.futures
import glob
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time

from tests.faults import injections
from tests.faults import workload
from tests.functional import deployment

WARM = 3        # seconds of workload before the fault
AFTER = 6       # seconds of workload after the part is back, at most:
MIN_AFTER = 3   # it stops sooner once a boot sent after the return is
                # ACTIVE (the recovery time is known then) and this passed
RECOVERY_BAR = 10
UUID = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-'
                  r'[0-9a-f]{12}')
TRANSITIONAL = ("SELECT uuid, vm_state, task_state FROM instances WHERE "
                "deleted = 0 AND (task_state IS NOT NULL OR "
                "vm_state NOT IN ('active', 'error', 'stopped'))")
OVERCOMMIT = (
    'SELECT a.resource_provider_id, a.resource_class FROM allocations a '
    'JOIN inventories i ON i.resource_provider_id = a.resource_provider_id '
    'AND i.resource_class = a.resource_class '
    'GROUP BY a.resource_provider_id, a.resource_class, i.total, '
    'i.reserved, i.allocation_ratio '
    'HAVING SUM(a.used) > (i.total - i.reserved) * i.allocation_ratio')
# The flavor the lifecycle workers resize to.
RESIZE_FLAVOR = 'tiny2'
COLUMNS = ('fault', 'reqs', 'recovery', 'answered', 'settled', 'quota',
           'placement', 'overcommit', 'driver', 'gone')
# Servers that must have a VM on their host's driver (an ERROR server
# may or may not have one).
WITH_VM = ('active', 'stopped', 'paused', 'suspended')


def _setup(workdir, backend):
    computes = {'compute1': injections.COMPUTE,
                'compute2': injections.COMPUTE}
    deploy = deployment.Deployment(
        workdir, backend=backend, computes=computes, api_socket=True,
        # A reservation whose conductor was killed is rolled back after
        # reservation_commit_timeout: short here, so "gone" can wait.
        conf={'quota': {'instances': 40, 'cores': 40, 'ram': 40 * 256,
                        'reservation_commit_timeout': 8,
                        'reservation_expire_check_interval': 2},
              'conductor': {'build_timeout': 120,
                            'build_timeout_check_interval': 2}})
    try:
        deploy.start()
        deploy.image_id = deploy.register_image()
        for name, disk in (('tiny', 1), (RESIZE_FLAVOR, 2)):
            status, _, body = deploy.admin_api.post('/flavors', {'flavor': {
                'name': name, 'id': name, 'ram': 256, 'vcpus': 1,
                'disk': disk}})
            assert status == 200, body
        _warm_up(deploy)
    except Exception:
        print(deploy.logs())
        deploy.cleanup()
        raise
    return deploy, list(computes)


def _warm_up(deploy):
    """One server booted and deleted, so the faults meet a scheduler that
    already knows the computes (a boot sent before their first report is
    refused "no valid host", which is not what the suite measures)."""
    def booted():
        status, _, body = deploy.api.post('/servers', {'server': {
            'name': 'warm-up', 'imageRef': deploy.image_id,
            'flavorRef': 'tiny'}})
        assert status == 202, body
        uuid = body['server']['id']
        state = deployment.wait_for(
            lambda: deploy.api.get('/servers/%s' % uuid)[2]['server'][
                'status'] in ('ACTIVE', 'ERROR') and
            deploy.api.get('/servers/%s' % uuid)[2]['server']['status'],
            timeout=30, message='the warm-up server built')
        deploy.api.delete('/servers/%s' % uuid)
        return state == 'ACTIVE'
    deployment.wait_for(booted, timeout=90, interval=2,
                        message='a warm-up server ACTIVE')
    if _delete_all(deploy):
        raise AssertionError('the warm-up server was not deleted')


def _settle(deploy, since):
    """(seconds from ``since`` until nothing is transitional, []), or
    (None, the servers still transitional after the bar)."""
    deadline = time.monotonic() + RECOVERY_BAR
    rows = []
    while True:
        try:
            rows = deploy.sql(TRANSITIONAL)
            if not rows:
                return time.monotonic() - since, []
        except Exception:  # the suite's own connection, after a blip
            deploy._engine.dispose()
        if time.monotonic() > deadline:
            return None, ['%s still %s/%s' % tuple(row) for row in rows]
        time.sleep(0.5)


def _leftovers(deploy):
    counts = [(what, len(deploy.sql('SELECT id FROM %s%s' % (what, where))))
              for what, where in (('instances', ' WHERE deleted = 0'),
                                  ('allocations', ''),
                                  ('reservations', ''))]
    left = ', '.join('%s %d' % (what, n) for what, n in counts if n)
    if dict(counts)['reservations']:
        left += ' (%s)' % '; '.join(
            '%s created %s expires %s' % tuple(row) for row in deploy.sql(
                'SELECT DISTINCT uuid, created_at, expire FROM '
                'reservations'))
    return left


def _delete_all(deploy):
    """Delete every server left; '' once everything is gone, else what
    is left (bounded: a reservation whose conductor was killed lasts
    ``reservation_commit_timeout``, shortened for the suite)."""
    api = deploy.admin_api
    deadline = time.monotonic() + 25
    while time.monotonic() < deadline:
        status, _, body = api.get('/servers?all_tenants=1')
        for server in (body or {}).get('servers', []) if status == 200 \
                else []:
            api.delete('/servers/%s' % server['id'])
        left = _leftovers(deploy)
        if not left:
            return ''
        time.sleep(1)
    return _leftovers(deploy)


def _driver_disagreements(deploy):
    """Where the records and the drivers of the running computes
    disagree: a server recorded on a host whose driver has no VM for it,
    or a VM no server on that host accounts for. The fake driver keeps
    its VMs in files (virt/fake_vms.py), read here as a hypervisor's
    list of guests would be."""
    rows = deploy.sql('SELECT uuid, host, vm_state FROM instances '
                      'WHERE deleted = 0 AND host IS NOT NULL')
    problems = []
    for daemon in deploy.daemons:
        if not daemon.name.startswith('compute'):
            continue
        host = daemon.name
        vms = deploy.vm_uuids(host)
        mine = {uuid: state for uuid, on, state in rows if on == host}
        problems += ['%s %s on %s has no VM there' % (uuid, state, host)
                     for uuid, state in sorted(mine.items())
                     if state in WITH_VM and uuid not in vms]
        problems += ['a VM of %s on %s, which no server there accounts '
                     'for' % (uuid, host)
                     for uuid in sorted(vms - set(mine))]
    return problems


def _answered(records):
    bad = [r for r in records if r.failed and r.status != 503 and not (
        isinstance(r.status, int) and r.status < 500)]
    return not bad, bad


def _recovery(load, returned):
    """Seconds from ``returned`` to the first boot sent after it seen
    ACTIVE, or None. Once one is seen no later sighting can be smaller,
    so the workload may stop then."""
    after = [active - returned for sent, active in list(load.actives)
             if sent >= returned]
    return min(after) if after else None


def _run_after(load, returned):
    """Keep the workload on after the return: MIN_AFTER seconds and until
    the recovery is known, at most AFTER seconds."""
    while True:
        elapsed = time.monotonic() - returned
        if elapsed >= AFTER or (elapsed >= MIN_AFTER and
                                _recovery(load, returned) is not None):
            return
        time.sleep(0.2)


def _checks(deploy):
    """quota verify and placement audit, run side by side (each is a
    nova-lite-manage process: seconds of start-up on a busy machine)."""
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        quota = pool.submit(deploy.manage, 'quota', 'verify')
        placement = pool.submit(deploy.manage, 'placement', 'audit')
        return (quota.result().returncode == 0,
                placement.result().returncode == 0)


def run_fault(deploy, fault, workers):
    began = time.monotonic()
    pool = workload.Pool('http://127.0.0.1:%d/v2.1' % deploy.port,
                         'demo:demo')
    admin = workload.Pool('http://127.0.0.1:%d/v2.1' % deploy.port,
                          'admin:admin')
    load = workload.Workload(pool, deploy.image_id, 'tiny', workers,
                             lambda: fault.__name__,
                             moves=(admin, RESIZE_FLAVOR, lambda: True))
    load.start()
    time.sleep(WARM)
    returned = fault(deploy)
    probe = threading.Thread(target=load.probe, daemon=True)
    probe.start()
    _run_after(load, returned)
    load.stop()
    probe.join(workload.POLL_TIMEOUT)
    stopped = time.monotonic()
    recovery = _recovery(load, returned)
    answered, bad = _answered(load.records)
    settled, unsettled = _settle(deploy, stopped)
    quota, placement = _checks(deploy)
    disagree = _driver_disagreements(deploy)
    result = collections.OrderedDict([
        ('fault', fault.__name__),
        ('reqs', len(load.records)),
        ('recovery', '%.1fs' % recovery if recovery is not None
         else 'none'),
        ('answered', answered),
        ('settled', settled is not None and not any(
            'timeout' in s[1] for s in load.stuck)),
        ('quota', quota),
        ('placement', placement),
        ('overcommit', not deploy.sql(OVERCOMMIT)),
        ('driver', not disagree),
    ])
    left = _delete_all(deploy)
    result['gone'] = not left
    if hasattr(fault, 'heal'):
        fault.heal(deploy)  # the part that stayed away, for what follows
    result['statuses'] = collections.Counter(r.status for r in load.records)
    result['bad'] = bad[:5] + load.stuck[:5] + unsettled[:5] + disagree[:5] + (
        ['left after deleting: %s' % left] if left else [])
    result['ok'] = recovery is not None and all(
        result[c] for c in COLUMNS[3:])
    result['seconds'] = time.monotonic() - began
    return result


def render(results):
    widths = (25, 5, 9, 9, 8, 6, 10, 11, 7, 5)
    line = ' '.join('%-*s' % (w, c)
                    for w, c in zip(widths, COLUMNS, strict=True))
    lines = [line, '-' * len(line)]
    for res in results:
        cells = [res[c] if not isinstance(res[c], bool) else
                 ('ok' if res[c] else 'FAIL') for c in COLUMNS]
        lines.append(' '.join('%-*s' % (w, c) for w, c in
                              zip(widths, cells, strict=True)))
        lines.append('    statuses: %s; %.0f s' % (', '.join(
            '%s x%d' % (k, v) for k, v in sorted(
                res['statuses'].items(), key=str)), res['seconds']))
        for bad in res['bad']:
            lines.append('    problem: %s' % (bad,))
    return '\n'.join(lines)


def _parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backend', default='postgresql',
                        choices=('postgresql', 'mysql'))
    parser.add_argument('--workers', type=int, default=5)
    parser.add_argument('--only', action='append',
                        help='run only the faults whose name contains this')
    parser.add_argument('--keep', action='store_true',
                        help='keep the work directory (logs)')
    return parser.parse_args(argv)


def main(argv=None):
    args = _parse(argv)
    # A SIGTERM (tox or CI timing out) must still stop the daemons, which
    # run in their own sessions, and drop the vhost and the database.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    workdir = tempfile.mkdtemp(prefix='nova-lite-faults-')
    deploy, computes = _setup(workdir, args.backend)
    results = []
    started = time.monotonic()
    try:
        for fault in injections.all_faults(computes):
            if args.backend != 'postgresql' and \
                    fault is injections.database_blip:
                continue
            if args.only and not any(o in fault.__name__
                                     for o in args.only):
                continue
            results.append(run_fault(deploy, fault, args.workers))
            print(render(results[-1:]).split('\n', 2)[2], flush=True)
    finally:
        codes = deploy.stop()
        deploy.cleanup()
    print('\nfault suite on %s, %d workers, %.0fs:' % (
        args.backend, args.workers, time.monotonic() - started))
    print(render(results))
    unclean = {n: c for n, c in codes.items() if c != 0}
    if unclean:
        print('daemons that did not exit 0 at the end: %s' % unclean)
    passed = all(r['ok'] for r in results) and not unclean
    if not passed:
        print(_log_lines(workdir, results))
    if args.keep or not passed:
        print('logs in %s' % workdir)
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if passed else 1


def _log_lines(workdir, results, limit=60):
    """The daemons' log lines that name a server of a failed row (what a
    CI log needs to tell why), at most ``limit`` per server."""
    uuids = set()
    for res in results:
        if not res['ok']:
            uuids.update(UUID.findall(' '.join(map(str, res['bad']))))
    out = []
    for uuid in sorted(uuids):
        out.append('\n==== log lines naming %s ====' % uuid)
        found = []
        for path in sorted(glob.glob(os.path.join(workdir, '*.log'))):
            with open(path, errors='replace') as log:
                found += ['%s: %s' % (os.path.basename(path), line.rstrip())
                          for line in log if uuid in line]
        if len(found) > limit:
            found = found[:limit // 2] + ['...'] + found[-limit // 2:]
        out += found
    return '\n'.join(out)


if __name__ == '__main__':
    sys.exit(main())
