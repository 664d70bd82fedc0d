"""Benchmark diagnostics: SQL statement counts and a profiler.

Both are off unless the environment asks for them; they are for
``tools/bench_boot.py`` (which sets them on the daemons it starts), not
for deployments, so they are not configuration options:

* ``NOVA_LITE_SQL_STATS=1`` counts every SQL statement and transaction
  end of the process, split like the RPC statistics into ``user`` (the
  thread's current request context has a user: work done for an API
  request) and ``service`` (start-up, heartbeats, periodic tasks), and
  logs them when the service stops as ``<binary> SQL statistics: {...}``;
* ``NOVA_LITE_PROFILE=<path>`` profiles every thread of the process by
  CPU time (yappi, which unlike cProfile follows all threads) from the
  service's start to its stop and writes the result to ``<path>`` in
  cProfile's format, for ``pstats``. A file ``<path>.open`` created
  meanwhile drops what was profiled so far (start-up), then
  ``<path>.close`` ends the profile there: a benchmark profiles only its
  measured window.

Usage (what ``nova_lite.service`` does around a service)::

    diagnostics.start()
    ...
    diagnostics.stop('nova-lite-conductor')
"""

import collections
import os
import threading

from oslo_context import context as o_context
from oslo_log import log as logging
import sqlalchemy as sa

LOG = logging.getLogger(__name__)

SQL_STATS_ENV = 'NOVA_LITE_SQL_STATS'
PROFILE_ENV = 'NOVA_LITE_PROFILE'

_SQL = collections.defaultdict(collections.Counter)
_LOCK = threading.Lock()
_state = {'sql': False, 'profiling': False}


def _origin():
    current = o_context.get_current()
    return 'user' if getattr(current, 'user_id', None) else 'service'


def _count(key):
    origin = _origin()
    with _LOCK:
        _SQL[origin][key] += 1


def _on_statement(conn, cursor, statement, parameters, context,
                  executemany):
    verb = statement.lstrip().split(None, 1)[0].upper() if statement else ''
    _count('statements')
    _count(verb if verb in ('SELECT', 'INSERT', 'UPDATE', 'DELETE')
           else 'other')


def _on_commit(conn):
    _count('commits')


def _on_rollback(conn):
    _count('rollbacks')


def enable_sql_stats():
    """Count the statements and transaction ends of every engine of this
    process from now on (idempotent)."""
    if _state['sql']:
        return
    _state['sql'] = True
    sa.event.listen(sa.engine.Engine, 'before_cursor_execute',
                    _on_statement)
    sa.event.listen(sa.engine.Engine, 'commit', _on_commit)
    sa.event.listen(sa.engine.Engine, 'rollback', _on_rollback)


def sql_stats():
    """{'user'|'service': {key: count}} so far; keys are ``statements``,
    the verbs SELECT, INSERT, UPDATE, DELETE and ``other``, ``commits``
    and ``rollbacks`` (a rollback of a read-only transaction included)."""
    with _LOCK:
        return {origin: dict(counts)
                for origin, counts in sorted(_SQL.items())}


def start():
    """Turn on what the environment asks for. Call once the process is
    the one that will do the work (after any fork)."""
    if os.environ.get(SQL_STATS_ENV):
        enable_sql_stats()
    if os.environ.get(PROFILE_ENV) and not _state['profiling']:
        import yappi  # only benchmarks need it (test-requirements)
        yappi.set_clock_type('cpu')
        yappi.start(builtins=False, profile_threads=True)
        _state['profiling'] = True
        _window_on_files(os.environ[PROFILE_ENV])


def _window_on_files(path):
    """``<path>.open`` drops what was profiled so far, ``<path>.close``
    stops profiling: see the module's doc. A thread looks for them (a
    signal handler can only be set in the main thread, which the
    service's start is not in)."""
    stopped = _state['window_ends'] = threading.Event()

    def window():
        import yappi
        for name, act in (('.open', yappi.clear_stats),
                          ('.close', yappi.stop)):
            while not os.path.exists(path + name):
                if stopped.wait(0.05):
                    return
            act()

    threading.Thread(target=window, name='profile-window',
                     daemon=True).start()


def stop(binary):
    """Log the SQL statistics and write the profile, if they were on."""
    if _state['sql']:
        LOG.info('%s SQL statistics: %s', binary, sql_stats())
    if _state['profiling']:
        import yappi
        yappi.stop()
        _state['profiling'] = False
        _state.pop('window_ends').set()
        path = os.environ[PROFILE_ENV]
        yappi.get_func_stats().save(path, type='pstat')
        LOG.info('%s profile written to %s', binary, path)
