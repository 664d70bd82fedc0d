"""The layering rules hold for the tree, and the checker catches breaches."""

import pathlib

from tests.unit import tool_modules

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _checker():
    return tool_modules.load('check_layering')


def test_tree_follows_the_layering_rules(capsys):
    assert _checker().main(['check', str(ROOT)]) == 0, capsys.readouterr().out


def test_checker_reports_each_kind_of_breach(tmp_path, capsys):
    compute = tmp_path / 'nova_lite' / 'compute'
    compute.mkdir(parents=True)
    (compute / 'bad.py').write_text(
        'from nova_lite.db import api\n'
        'import eventlet\n'
        'from oslo_config import cfg\n'
        'OPT = cfg.StrOpt("x")\n'
        'api.context_manager.writer\n')
    assert _checker().main(['check', str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert 'computes must not import nova_lite.db' in out
    assert 'eventlet must not be imported' in out
    assert 'options belong in nova_lite/conf' in out
    assert 'not context_manager' in out
