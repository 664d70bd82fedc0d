"""What tools/bench_boot.py prints for a run and for the medians."""

import argparse

import pytest

from tests.unit import tool_modules


@pytest.fixture
def bench(monkeypatch):
    # The script imports its neighbours in tools/ by name.
    monkeypatch.syspath_prepend(str(tool_modules.TOOLS))
    return tool_modules.load('bench_boot')


def _result(db_xacts, cpu=None):
    return {'boots_per_s': 20.0, 'p50_ms': 600.0, 'p99_ms': 1100.0,
            'rpc_per_boot': 8.0, 'sql_per_boot': 13.2, 'xact_per_boot': 7.2,
            'db_xact_per_boot': db_xacts,
            'cpu_ms': cpu or {'conductor': 30.0, 'total': 80.0}}


def _args(all_in_one):
    return argparse.Namespace(runs=2, servers=1000, clients=8, nodes=100,
                              all_in_one=all_in_one, backend='postgresql',
                              conductor_workers=1, api_workers=1)


def test_run_line_shows_the_database_count(bench, capsys):
    bench._print_run(0, _result(8.5))
    line = capsys.readouterr().out
    assert ('7.2 transactions/boot (database: 8.5 transactions/boot); '
            'CPU ms/boot: conductor 30.0, total 80.0') in line


def test_run_line_without_a_database_count(bench, capsys):
    # nova-lite-all's SQLite keeps none: nothing is printed, not "nan".
    bench._print_run(0, _result(None, {'all': 60.0, 'total': 60.0}))
    line = capsys.readouterr().out
    assert 'database' not in line
    assert '7.2 transactions/boot; CPU ms/boot: all 60.0, total 60.0' in line


def test_medians_show_the_database_count(bench, capsys):
    bench._print_medians(_args(False), [_result(8.5), _result(9.5)])
    assert 'transactions per boot (database: 9.0)' in capsys.readouterr().out


def test_medians_without_a_database_count(bench, capsys):
    bench._print_medians(_args(True), [_result(None), _result(None)])
    out = capsys.readouterr().out
    assert 'database' not in out
    assert 'nan' not in out
    assert '7.2 transactions per boot\n' in out
