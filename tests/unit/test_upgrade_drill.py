"""The upgrade drill's own checks: which versions it thinks the old side
speaks, and whether pinned daemons stayed at or below their pins."""

import datetime
import os
import subprocess
import sys

from tests.upgrade import pin_check
from tests.upgrade import sides

T0 = datetime.datetime(2026, 1, 1, 12, 0, 0)
OLD = {'conductor': '1.0', 'scheduler': '1.0', 'compute': '1.0'}


def _at(seconds):
    return T0 + datetime.timedelta(seconds=seconds)


def _run(name, role, old_side=False, pinned=True, start=0, stop=None):
    return pin_check.DaemonRun(name, role, old_side, pinned, _at(start),
                               None if stop is None else _at(stop), name)


def _stats(**logs):
    """A read_stats stand-in: {log: [(seconds, {sent key: total})]}."""
    def read(log):
        return [(_at(sec), {'sent': dict(sent)}) for sec, sent in
                logs.get(log, [])]
    return read


def test_release_pin_flags_a_message_above_it():
    runs = [_run('conductor-new', 'conductor')]
    read = _stats(**{'conductor-new': [
        (2, {'scheduler.select_destinations@1.0': 5}),
        (4, {'scheduler.select_destinations@1.0': 7,
             'scheduler.update_provider_states@1.1': 1})]})
    found = pin_check.violations(runs, OLD, 'release', read=read)
    assert found == ['conductor-new sent scheduler.update_provider_states'
                     '@1.1 above its pin 1.0 (x1)']


def test_unpinned_and_old_daemons_are_not_checked():
    runs = [_run('conductor-new', 'conductor', pinned=False),
            _run('scheduler-old', 'scheduler', old_side=True,
                 pinned=False)]
    sent = [(2, {'scheduler.update_provider_states@1.1': 3})]
    read = _stats(**{'conductor-new': sent, 'scheduler-old': sent})
    assert pin_check.violations(runs, OLD, 'release', read=read) == []


def test_auto_pin_may_rise_only_once_the_old_service_is_gone():
    """The old scheduler stops at 10 s: 1.1 before that is a violation,
    1.1 in an interval after it is not."""
    runs = [_run('scheduler-old', 'scheduler', old_side=True, pinned=False,
                 stop=10),
            _run('compute-new', 'compute', start=1)]
    read = _stats(**{'compute-new': [
        (4, {'scheduler.update_provider_states@1.1': 2}),
        (12, {'scheduler.update_provider_states@1.1': 2}),
        (14, {'scheduler.update_provider_states@1.1': 6})]})
    found = pin_check.violations(runs, OLD, 'auto', read=read)
    assert found == ['compute-new sent scheduler.update_provider_states'
                     '@1.1 above its pin 1.0 (x2)']


def test_auto_interval_straddling_the_stop_is_not_checked():
    runs = [_run('scheduler-old', 'scheduler', old_side=True, pinned=False,
                 stop=10),
            _run('compute-new', 'compute', start=1)]
    read = _stats(**{'compute-new': [
        (8, {}), (11, {'scheduler.update_provider_states@1.1': 1})]})
    assert pin_check.violations(runs, OLD, 'auto', read=read) == []


def _fake_side(tmp_path, version):
    """A virtualenv whose nova_lite says every RPC API is ``version``."""
    venv = tmp_path / 'venv'
    subprocess.run([sys.executable, '-m', 'venv', '--without-pip',
                    str(venv)], check=True)
    site = subprocess.run(
        [str(venv / 'bin' / 'python'), '-I', '-c',
         'import sysconfig; print(sysconfig.get_paths()["purelib"])'],
        check=True, capture_output=True, text=True).stdout.strip()
    for package in ('conductor', 'scheduler', 'compute'):
        path = os.path.join(site, 'nova_lite', package)
        os.makedirs(path)
        open(os.path.join(path, '__init__.py'), 'w').close()
        with open(os.path.join(path, 'rpcapi.py'), 'w') as module:
            module.write('RPC_VERSION = %r\n' % version)
    open(os.path.join(site, 'nova_lite', '__init__.py'), 'w').close()
    return str(venv / 'bin')


def test_probe_asks_the_old_side_not_the_working_tree(tmp_path,
                                                      monkeypatch):
    """Regression: run from the project root, the probe imported the
    working tree's nova_lite and reported the new versions for the old
    side, so --from <git ref> pinned the new daemons to the new versions.
    """
    bin_dir = _fake_side(tmp_path, '0.7')
    monkeypatch.chdir(sides.ROOT)
    monkeypatch.setenv('PYTHONPATH', sides.ROOT)
    assert sides.probe_rpc_versions(bin_dir) == {
        'conductor': '0.7', 'scheduler': '0.7', 'compute': '0.7'}




class _ScriptedPool:
    """An ApiPool stand-in answering (status, body) in turn."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.sent = []

    def request(self, method, path, body=None):
        self.sent.append((method, path, body))
        return self.answers.pop(0)


def _workload(pool, admin, allowed=True):
    from tests.upgrade import workload
    load = workload.Workload(pool, 'image', 'small', 1, lambda: 'phase',
                             moves=(admin, 'big', lambda: allowed))
    load._wait = lambda uuid, status, timeout=120: True
    return load


PINNED = {'conflictingRequest': {'message': "Cannot 'resize' instance x: "
                                 'the computes are pinned ([upgrade_levels] '
                                 'compute) below RPC version 1.2, ...'}}


def test_moves_refused_by_a_pinned_api_are_not_failures():
    load = _workload(_ScriptedPool((409, PINNED)),
                     _ScriptedPool((409, PINNED)))
    assert load._moves('u1')
    assert [(r.op, r.status, r.failed) for r in load.records] == [
        ('refused', 409, False), ('refused', 409, False)]
    assert load.moved() == 0


def test_any_other_refusal_is_a_failure():
    conflict = {'conflictingRequest': {'message': 'task_state resizing'}}
    load = _workload(_ScriptedPool((404, None)),
                     _ScriptedPool((409, conflict)))
    load._moves('u1')
    assert [(r.op, r.failed) for r in load.records] == [
        ('resize', True), ('migrate', True)]


def test_no_moves_while_an_old_api_serves():
    user = _ScriptedPool()
    load = _workload(user, _ScriptedPool(), allowed=False)
    assert load._moves('u1')
    assert user.sent == [] and load.records == []


def test_confirm_is_asked_again_while_an_api_is_pinned(monkeypatch):
    from tests.upgrade import workload
    monkeypatch.setattr(workload.time, 'sleep', lambda _seconds: None)
    user = _ScriptedPool((202, None), (409, PINNED), (204, None),
                         (204, None))
    admin = _ScriptedPool((202, None))
    load = _workload(user, admin)
    assert load._moves('u1')
    assert [(r.op, r.failed) for r in load.records] == [
        ('resize', False), ('refused', False), ('confirm', False),
        ('migrate', False), ('confirm', False)]
    assert load.moved() == 2
    assert user.sent[0][2] == {'resize': {'flavorRef': 'big'}}
    assert admin.sent == [('POST', '/servers/u1/action', {'migrate': None})]
