"""nova-lite-manage quota verify and refresh."""

import sys

import pytest

from nova_lite.cmd import manage
from nova_lite.conf import CONF
from nova_lite.quota import usages


def _audit(user, resource, recorded, counted, reserved=(0, 0)):
    return usages.Audit('p1', user, resource, recorded, counted,
                        reserved[0], reserved[1])


@pytest.fixture
def run(monkeypatch, capsys):
    """run(argv...) -> (exit code, stdout) of nova-lite-manage."""
    monkeypatch.setattr(manage.db_api, 'configure', lambda conf: None)

    def run(*argv):
        monkeypatch.setattr(sys, 'argv', ['nova-lite-manage', *argv])
        CONF.reset()  # tests run with CONF parsed; main() parses it again
        try:
            code = manage.main()
        finally:
            # main() registers its command line: take it back, so the
            # next test parses an empty one.
            CONF.reset()
            CONF.unregister_opt(manage.cfg.SubCommandOpt('category'))
        return code, capsys.readouterr().out
    return run


def test_verify_is_clean_when_every_record_matches(run, monkeypatch):
    monkeypatch.setattr(usages, 'projects', lambda ctxt: ['p1'])
    monkeypatch.setattr(usages, 'audit_project', lambda ctxt, p: [
        _audit('', 'instances', 2, 2), _audit('u1', 'instances', 2, 2),
        _audit('u2', 'cores', None, 4), _audit('u3', 'ram', -1, 512)])
    code, out = run('quota', 'verify')
    assert code == 0
    assert '0 of 4 usage records drifted in 1 project(s)' in out
    assert 'untracked' in out and 'unknown' in out


def test_verify_exits_3_and_names_the_drift(run, monkeypatch):
    audits = {'p1': [_audit('', 'instances', 3, 2),
                     _audit('u1', 'instances', 3, 2),
                     _audit('u1', 'cores', 2, 2, reserved=(1, 0))]}
    monkeypatch.setattr(usages, 'audit_project',
                        lambda ctxt, p: audits[p])
    code, out = run('quota', 'verify', '--project', 'p1')
    assert code == manage.EXIT_DRIFT == 3
    lines = [line.split() for line in out.splitlines()]
    assert ['p1', '(project)', 'instances', '3/2', '0/0', 'DRIFT'] in lines
    assert ['p1', 'u1', 'cores', '2/2', '1/0', 'DRIFT'] in lines
    assert '3 of 3 usage records drifted in 1 project(s)' in out


def test_refresh_recounts_one_project(run, monkeypatch):
    asked = []
    monkeypatch.setattr(usages, 'refresh_project', lambda ctxt, p: (
        asked.append(p) or {('', 'instances'): 2, ('u1', 'instances'): 2}))
    code, out = run('quota', 'refresh', '--project', 'p1')
    assert code == 0 and asked == ['p1']
    assert out.split() == ['(project)', 'instances', '2', 'u1',
                           'instances', '2']
