"""The faults the suite injects, one function each.

Each takes the ``Deployment`` and returns when (``time.monotonic()``) the
failed part was back. RabbitMQ and PostgreSQL are shared with other
tests on the machine, so their outages stay inside this run's vhost and
scratch database: the vhost's permissions are withdrawn and its
connections closed (a full ``rabbitmqctl stop_app`` would cut every
other test's daemons), and the scratch database refuses connections while
its backends are terminated (restarting the cluster would do the same to
every other scratch database).
"""

import subprocess
import time

import sqlalchemy as sa

from tests import db_fixtures

OUTAGE = 3  # seconds the bus or the database stays away

COMPUTE = {'node_count': 2, 'spawn_delay': 1.0}
BINARIES = {'conductor': 'nova-lite-conductor',
            'scheduler': 'nova-lite-scheduler', 'api': 'nova-lite-api'}


def _restart_conf(name):
    if name.startswith('compute'):
        return 'nova-lite-compute', {'DEFAULT': {'host': name},
                                     'fake_driver': COMPUTE}
    return BINARIES[name], None


def _restart(deploy, name, stop):
    daemon = deploy.daemon(name)
    stop(daemon)
    deploy.daemons.remove(daemon)
    time.sleep(1)  # as a supervisor's restart delay would
    binary, conf = _restart_conf(name)
    deploy.start_daemon(binary, name, conf)
    return time.monotonic()


def sigkill(name):
    def inject(deploy):
        def stop(daemon):
            daemon.kill()
            daemon.stop()  # reap, close the notify socket
        return _restart(deploy, name, stop)
    inject.__name__ = '%s SIGKILL' % name
    return inject


def sigterm(name):
    def inject(deploy):
        def stop(daemon):
            code = daemon.stop()
            if code != 0:
                raise AssertionError('%s exited %s on SIGTERM:\n%s' % (
                    name, code, daemon.tail()))
        return _restart(deploy, name, stop)
    inject.__name__ = '%s SIGTERM' % name
    return inject


def sigkill_repeatedly(name, times=5):
    """``name`` SIGKILLed as soon as it is READY, ``times`` times in a
    row (a crash loop), then left running."""
    def inject(deploy):
        for _ in range(times):
            healed = sigkill(name)(deploy)
        return healed
    inject.__name__ = '%s SIGKILL x%d' % (name, times)
    return inject


def sigkill_draining(name, grace=0.5):
    """``name`` sent SIGTERM and SIGKILLed ``grace`` seconds into its
    graceful stop (a supervisor's stop timeout, or an operator's
    impatience): what it was draining is lost."""
    def inject(deploy):
        def stop(daemon):
            daemon.terminate()
            time.sleep(grace)
            daemon.kill()
            daemon.stop()  # reap, close the notify socket
        return _restart(deploy, name, stop)
    inject.__name__ = '%s killed draining' % name
    return inject


def compute_gone(name):
    """``name`` killed and not restarted: what it held must end within
    ``service_down_time`` (as seen by the run) and the recovery bar.
    Returns when it is seen down; ``heal`` restarts it afterwards."""
    def inject(deploy):
        deploy.kill(deploy.daemon(name))
        time.sleep(deploy.service_down_time + 1)
        return time.monotonic()

    def heal(deploy):
        binary, conf = _restart_conf(name)
        deploy.start_daemon(binary, name, conf)

    inject.__name__ = '%s gone' % name
    inject.heal = heal
    return inject


def _rabbitmqctl(*args):
    subprocess.run(['rabbitmqctl', *args], check=True, timeout=60,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def rabbit_outage(deploy):
    vhost = deploy.vhost.name
    _rabbitmqctl('clear_permissions', '-p', vhost, 'guest')
    try:
        _rabbitmqctl('close_all_connections', '--vhost', vhost,
                     'nova_lite fault suite')
        time.sleep(OUTAGE)
    finally:
        _rabbitmqctl('set_permissions', '-p', vhost, 'guest', '.*', '.*',
                     '.*')
    return time.monotonic()


rabbit_outage.__name__ = 'RabbitMQ outage'


def database_blip(deploy):
    if deploy.backend != 'postgresql':
        raise NotImplementedError('the blip is PostgreSQL only')
    name = deploy.database.name
    admin = sa.create_engine(db_fixtures.SERVER_URLS['postgresql'],
                             isolation_level='AUTOCOMMIT')
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(
                'ALTER DATABASE "%s" ALLOW_CONNECTIONS false' % name))
            try:
                conn.execute(sa.text(
                    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity '
                    'WHERE datname = :name AND pid <> pg_backend_pid()'),
                    {'name': name})
                time.sleep(OUTAGE)
            finally:
                conn.execute(sa.text(
                    'ALTER DATABASE "%s" ALLOW_CONNECTIONS true' % name))
    finally:
        admin.dispose()
    if deploy._engine is not None:
        deploy._engine.dispose()  # its connections were terminated too
    return time.monotonic()


database_blip.__name__ = 'PostgreSQL blip'


def all_faults(computes):
    first = computes[0]
    faults = [sigkill(first), sigkill('conductor'), sigkill('scheduler')]
    faults += [sigterm(name) for name in
               (first, 'conductor', 'scheduler', 'api')]
    faults += [sigkill_repeatedly('conductor'), sigkill_draining('conductor')]
    faults += [rabbit_outage, database_blip, compute_gone(first)]
    return faults
