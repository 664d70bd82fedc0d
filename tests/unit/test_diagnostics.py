"""The benchmark diagnostics: SQL counts split by who asked."""

import os
import pstats
import time
from unittest import mock

from nova_lite import context as nl_context
from nova_lite import diagnostics


def _busy(n):
    return n if n < 2 else _busy(n - 1) + 1


def _reset():
    diagnostics._SQL.clear()


def test_statements_counted_by_origin_and_verb():
    _reset()
    nl_context.RequestContext(user_id='u', project_id='p')  # current
    diagnostics._on_statement(None, None, '  select 1', {}, None, False)
    diagnostics._on_statement(None, None, 'UPDATE t SET a=1', {}, None,
                              False)
    diagnostics._on_commit(None)
    nl_context.RequestContext(user_id=None, project_id=None,
                              is_admin=True)
    diagnostics._on_statement(None, None, 'SAVEPOINT x', {}, None, False)
    diagnostics._on_rollback(None)
    assert diagnostics.sql_stats() == {
        'service': {'statements': 1, 'other': 1, 'rollbacks': 1},
        'user': {'statements': 2, 'SELECT': 1, 'UPDATE': 1, 'commits': 1},
    }


def test_off_unless_the_environment_asks():
    with mock.patch.dict(os.environ, {}, clear=True), \
            mock.patch.object(diagnostics, 'enable_sql_stats') as enable:
        diagnostics.start()
    enable.assert_not_called()
    with mock.patch.dict(os.environ, {diagnostics.SQL_STATS_ENV: '1'}), \
            mock.patch.object(diagnostics, 'enable_sql_stats') as enable:
        diagnostics.start()
    enable.assert_called_once_with()


def test_stop_writes_the_profile(tmp_path):
    path = tmp_path / 'p.pstats'
    with mock.patch.dict(os.environ, {diagnostics.PROFILE_ENV: str(path)}):
        diagnostics.start()
        _busy(20)
        diagnostics.stop('nova-lite-test')
    stats = pstats.Stats(str(path))
    assert any(name == '_busy' for _f, _l, name in stats.stats)


def _before(n):
    return n if n < 2 else _before(n - 1) + 1


def _after(n):
    return n if n < 2 else _after(n - 1) + 1


def _wait_for(predicate):
    for _ in range(200):
        if predicate():
            return
        time.sleep(0.01)
    raise AssertionError('the profile window did not move')


def test_the_profile_covers_its_window_only(tmp_path):
    path = tmp_path / 'p.pstats'

    def functions():
        import yappi
        return {stat.name for stat in yappi.get_func_stats()}

    with mock.patch.dict(os.environ, {diagnostics.PROFILE_ENV: str(path)}):
        diagnostics.start()
        _before(20)
        (tmp_path / 'p.pstats.open').touch()
        _wait_for(lambda: '_before' not in functions())
        _busy(20)
        (tmp_path / 'p.pstats.close').touch()
        import yappi
        _wait_for(lambda: not yappi.is_running())
        _after(20)
        diagnostics.stop('nova-lite-test')
    names = {name for _f, _l, name in pstats.Stats(str(path)).stats}
    assert '_busy' in names
    assert '_before' not in names and '_after' not in names
