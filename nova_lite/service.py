"""Services: the plumbing around a manager.

A ``Service`` registers its row in the services table, heartbeats, runs its
manager's periodic tasks and consumes its RPC topic. ``WSGIService`` serves
the API. Both are oslo.service services on the threading backend, so
``oslo_service.service.launch`` gives them signal handling: SIGTERM stops
consuming, lets in-flight work finish within ``graceful_shutdown_timeout``
and exits 0; SIGHUP reloads the mutable options in place
(``nova_lite/reload.py``) and calls ``reset`` on the manager.

Readiness goes to systemd (``Type=notify``) only once the RPC server is
consuming, or the API accepting connections.
"""

import gc
import os
import sys
import time

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_reports import guru_meditation_report as gmr
from oslo_service import service
from oslo_service import systemd
from oslo_utils import importutils

from nova_lite.conductor import api as conductor_api
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.conf import CONF
from nova_lite import context as nl_context
from nova_lite.db import api as db_api
from nova_lite import diagnostics
from nova_lite import exception
from nova_lite import objects
from nova_lite import releases
from nova_lite import reload
from nova_lite import rpc
from nova_lite import rpc_stats
from nova_lite import version
from nova_lite import watchdog
from nova_lite import workers

LOG = logging.getLogger(__name__)

MANAGERS = {
    'nova-lite-conductor': 'nova_lite.conductor.manager.ConductorManager',
    'nova-lite-scheduler': 'nova_lite.scheduler.manager.SchedulerManager',
    'nova-lite-compute': 'nova_lite.compute.manager.ComputeManager',
}
TOPICS = {
    'nova-lite-conductor': conductor_rpcapi.RPC_TOPIC,
    'nova-lite-scheduler': 'scheduler',
    'nova-lite-compute': 'compute',
}

# How each kind of process reaches the database.
DB_DIRECT = 'direct'          # conductor, scheduler, nova-lite-all
DB_READ_ONLY = 'read-only'    # api: reads here, writes via the conductor
DB_NONE = 'none'              # compute: everything via the conductor


def setup_process(db_access):
    """Prepare this process's bus and database access. Call after fork."""
    rpc.init(CONF)
    if db_access == DB_NONE:
        db_api.disable_db_access('nova-lite-compute')
        api = conductor_api.make_compute_indirection_api()
        api.wait_until_ready(nl_context.get_admin_context())
    else:
        db_api.configure(CONF)
        if db_access == DB_READ_ONLY:
            conductor_api.make_indirection_api()


def check_service_versions(ctxt, binary, host):
    """Refuse to run beside a service older than the oldest release this
    code supports (raises ServiceTooOld naming it). This service's own row,
    which still says the version it ran before, does not count."""
    if CONF.upgrade_levels.skip_service_version_check:
        return
    oldest = releases.oldest_supported()
    for svc in objects.ServiceList.get_all(ctxt):
        if (svc.binary, svc.host) == (binary, host):
            continue
        if svc.is_up and svc.version < oldest['service_version']:
            raise exception.ServiceTooOld(
                binary=svc.binary, host=svc.host, version=svc.version,
                oldest=oldest['service_version'], release=oldest['name'])


class Service(service.Service):
    """An RPC service: conductor, scheduler or compute."""

    def __init__(self, binary, host=None, db_access=None, manager=None):
        super().__init__()
        self.binary = binary
        self.host = host or CONF.host
        self.topic = TOPICS[binary]
        self.db_access = db_access
        self.manager_class_name = manager or MANAGERS[binary]
        self.manager = None
        self.service_ref = None
        self.rpcserver = None
        self._heartbeat_ok_at = None     # monotonic time of the last one

    def start(self):
        if self.db_access is not None:
            setup_process(self.db_access)
        manager_class = importutils.import_class(self.manager_class_name)
        self.manager = manager_class(host=self.host)
        ctxt = nl_context.get_admin_context()
        check_service_versions(ctxt, self.binary, self.host)
        self.service_ref = self._register(ctxt)
        self.manager.init_host()
        target = messaging.Target(topic=self.topic, server=self.host)
        self.rpcserver = rpc.get_server(target, [self.manager])
        self.rpcserver.start()
        LOG.info('%s on %s consuming topic %s', self.binary, self.host,
                 self.topic)
        self.manager.post_start_hook()
        self.tg.add_timer_args(CONF.report_interval, self._heartbeat,
                               initial_delay=CONF.report_interval)
        self.tg.add_dynamic_timer_args(self._periodic_tasks,
                                       initial_delay=1,
                                       periodic_interval_max=60)
        add_stats_timer(self.tg, self.binary)

    def _register(self, ctxt):
        try:
            ref = objects.Service.get_by_host_and_binary(ctxt, self.host,
                                                         self.binary)
        except exception.ServiceNotFound:
            ref = objects.Service(ctxt, host=self.host, binary=self.binary,
                                  topic=self.topic)
            try:
                ref.create()
            except exception.ServiceExists:
                ref = objects.Service.get_by_host_and_binary(
                    ctxt, self.host, self.binary)
        ref.heartbeat()
        self._heartbeat_ok_at = time.monotonic()
        return ref

    def _heartbeat(self):
        try:
            # A heartbeat whose answer was lost (a broker outage) is sent
            # again at the next interval rather than waiting out
            # rpc_response_timeout, which may exceed service_down_time.
            with conductor_rpcapi.call_timeout(
                    max(1, CONF.service_down_time // 4)):
                self.service_ref.heartbeat()
            self._heartbeat_ok_at = time.monotonic()
        except Exception:
            # A heartbeat lost to a database or conductor blip makes the
            # service look down for a while; it must not stop the service.
            LOG.exception('Heartbeat of %s on %s failed', self.binary,
                          self.host)

    def is_healthy(self):
        """Consuming, and heartbeating within service_down_time (the
        heartbeat reaches the database directly, or through a conductor
        over the bus for a compute): what the systemd watchdog asks."""
        if self.rpcserver is None or self._heartbeat_ok_at is None:
            return False
        return (time.monotonic() - self._heartbeat_ok_at
                < CONF.service_down_time)

    def reset(self):
        """After SIGHUP mutated the configuration (nova_lite/reload.py)."""
        if self.manager is not None:
            self.manager.reset()

    def _periodic_tasks(self):
        ctxt = nl_context.get_admin_context()
        return self.manager.periodic_tasks(ctxt)

    def stop(self, graceful=True):
        LOG.info('Stopping %s on %s', self.binary, self.host)
        if self.rpcserver is not None:
            try:
                # Stop consuming, then let in-flight requests finish.
                rpc.stop_server(self.rpcserver)
            except Exception:
                LOG.exception('Stopping the RPC server failed')
        self.tg.stop_timers(wait=False)
        if self.manager is not None:
            self.manager.cleanup_host()
        _log_stats(self.binary)
        super().stop(graceful=graceful)

    def wait(self):
        super().wait()


def add_stats_timer(tg, binary):
    """Log this process's RPC statistics every rpc_stats_log_interval."""
    if CONF.rpc_stats_log_interval:
        tg.add_timer_args(CONF.rpc_stats_log_interval, _log_stats,
                          args=(binary,),
                          initial_delay=CONF.rpc_stats_log_interval)


def _log_stats(binary):
    LOG.info('%s RPC statistics: %s', binary, rpc_stats.stats())


class WSGIService(service.Service):
    """The compute API served by cheroot, a threaded WSGI server."""

    def __init__(self, name='osapi_compute', db_access=None, app=None,
                 sock=None, sock_outlives=False):
        super().__init__()
        self.name = name
        self.db_access = db_access
        self.app = app
        self.server = None
        # A socket already listening (nova_lite.wsgi.listener): made before
        # the workers fork, or passed by systemd (``sock_outlives``: it
        # keeps listening after this service, for the next one).
        self.sock = sock
        self.sock_outlives = sock_outlives
        self.host = CONF.osapi_compute_listen
        self.port = CONF.osapi_compute_listen_port
        if sock is not None:
            self.host, self.port = sock.getsockname()[:2]

    def start(self):
        from nova_lite.wsgi import api as wsgi_api
        from nova_lite.wsgi import server as wsgi_server
        if self.db_access is not None:
            setup_process(self.db_access)
        app = self.app or wsgi_api.load_app()
        self.server = wsgi_server.make_server(
            (self.host, self.port), app, sock=self.sock,
            ends_listening=self._ends_listening,
            numthreads=CONF.api.server_threads,
            request_queue_size=CONF.api.backlog,
            shutdown_timeout=_request_grace(),
            server_name='nova-lite-api')
        self.server.prepare()
        self.port = self.server.bind_addr[1]
        self.tg.add_thread(self.server.serve)
        add_stats_timer(self.tg, 'nova-lite-api')
        LOG.info('nova-lite-api listening on http://%s:%s/', self.host,
                 self.port)

    def _ends_listening(self):
        """Whether stopping ends the listening (wsgi/server.py): not on
        systemd's socket, nor when only this worker stops (the launcher
        forks a replacement that serves the same socket)."""
        if self.sock is None:
            return True
        return not self.sock_outlives and workers.service_stopping()

    def is_healthy(self):
        """Accepting connections (the systemd watchdog asks)."""
        return self.server is not None and bool(self.server.ready)

    def stop(self, graceful=True):
        if self.server is not None:
            self.server.stop()
        _log_stats('nova-lite-api')
        super().stop(graceful=graceful)


def _request_grace():
    """Seconds a stopping API gives its requests in flight: within
    graceful_shutdown_timeout (0: no limit), after which the launcher
    ends the process (cheroot's 5 s when not run by a launcher)."""
    try:
        total = CONF.graceful_shutdown_timeout
    except cfg.NoSuchOptError:
        return 5
    if not total:
        return None
    return max(1, total - 2)


class ServiceGroup(service.ServiceBase):
    """Several services in one process (``nova-lite-all``).

    Started in order and stopped in reverse, so the API stops taking
    requests first and the conductor, which the others need, goes last.
    """

    def __init__(self, services, db_access):
        self.services = list(services)
        self.db_access = db_access

    def start(self):
        setup_process(self.db_access)
        for svc in self.services:
            svc.start()

    def stop(self, graceful=True):
        for svc in reversed(self.services):
            svc.stop(graceful=graceful)

    def wait(self):
        for svc in self.services:
            svc.wait()

    def is_healthy(self):
        return all(svc.is_healthy() for svc in self.services)

    def reset(self):
        for svc in self.services:
            svc.reset()


def launch(server, count=1):
    """Run ``server`` under oslo.service until SIGTERM, in ``count``
    forked worker processes; return the exit code."""
    # oslo.service's launcher (cotyledon) would tell systemd READY=1 from
    # its master process as soon as it forked the worker, long before the
    # worker consumes anything. Keep the socket from it and let the worker
    # say READY once it really is.
    notify_socket = os.environ.pop('NOTIFY_SOCKET', None)
    # SIGUSR2 prints a Guru Meditation report (every thread's stack, the
    # configuration, the package version) to stderr or [oslo_reports]
    # log_dir, without stopping anything. Set up before the launcher
    # forks, so the worker inherits the handler and answers too.
    gmr.TextGuruMeditation.setup_autorun(version, conf=CONF)
    # SIGHUP reloads the mutable options in the worker, which keeps
    # running (nova_lite/reload.py), instead of forking a new one.
    reload.install()
    launcher = service.launch(
        CONF, _Notifying(server, notify_socket, workers.ReadyCount(count)),
        workers=count, restart_method='mutate')
    workers.watch_service_stop(launcher)
    return launcher.wait()


def settle_heap():
    """Once the service has started: freeze what start-up allocated, so
    no later collection walks it again, and collect the youngest
    generation every ``[DEFAULT] gc_young_threshold`` allocations."""
    gc.collect()
    gc.freeze()
    if CONF.gc_young_threshold:
        _young, middle, old = gc.get_threshold()
        gc.set_threshold(CONF.gc_young_threshold, middle, old)


class _Notifying(service.ServiceBase):
    """Tell systemd we are ready once the wrapped service has started."""

    def __init__(self, wrapped, notify_socket, ready=None):
        self.wrapped = wrapped
        self.notify_socket = notify_socket
        self.ready = ready
        self.watchdog = None

    def start(self):
        diagnostics.start()
        self.wrapped.start()
        settle_heap()
        # With several workers, the last one to consume says READY.
        last = self.ready is None or self.ready.started()
        if self.notify_socket and last:
            os.environ['NOTIFY_SOCKET'] = self.notify_socket
            systemd.notify_once()
        # WATCHDOG=1 while healthy, if the unit has WatchdogSec=.
        self.watchdog = watchdog.Watchdog.from_environment(
            self.notify_socket, self.wrapped)
        if self.watchdog is not None:
            self.watchdog.start()

    def stop(self, graceful=True):
        if self.watchdog is not None:
            self.watchdog.stop()
        self.wrapped.stop(graceful=graceful)
        diagnostics.stop(getattr(self.wrapped, 'binary', None)
                         or os.path.basename(sys.argv[0]))

    def wait(self):
        self.wrapped.wait()

    def reset(self):
        self.wrapped.reset()
