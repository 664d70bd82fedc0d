"""SIGHUP: reload the mutable options in place, without a new worker.

oslo.service runs each daemon's worker under cotyledon. On SIGHUP the
master re-reads the configuration files (``restart_method='mutate'``) and
passes the signal to its workers; a worker's default answer is to stop
and be forked again, which drains its RPC consumer and drops its database
pool, caches and in-flight periodic state. ``install`` makes a worker
answer in place instead: it mutates its own copy of the configuration
(oslo.config applies only options declared ``mutable=True`` and warns
about the others, which still need a restart) and calls the service's
``reset``, which lets each manager apply what it caches (``Manager.reset``).
Options read where they are used (``[conductor] build_timeout``,
``task_timeout``, ...) take effect at their next use; oslo.log's own
mutate hook applies ``debug`` and ``log_config_append`` at once.

This replaces the ``reload`` of oslo.service's threading-backend
``ServiceWrapper``, the cotyledon service every oslo.service worker runs;
``tests/unit/test_reload.py`` fails if that class moves.
"""

from oslo_log import log as logging
from oslo_service.backend._threading import service as threading_service

from nova_lite.conf import CONF

LOG = logging.getLogger(__name__)


def install():
    """Make SIGHUP reload workers in place (call before launching)."""
    threading_service.ServiceWrapper.reload = _reload_in_place


def _reload_in_place(wrapper):
    LOG.info('SIGHUP: reloading the mutable options in place')
    CONF.mutate_config_files()
    wrapper.service_instance.reset()
    LOG.info('SIGHUP: reload done; options not marked mutable need a '
             'restart')
