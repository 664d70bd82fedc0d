"""The boot benchmark's readings of /proc: context switches over every
thread, the machine's busy and idle time, and differences of samples."""

import os

import pytest

from tests.unit import tool_modules

metrics = tool_modules.load('boot_metrics')

STATUS = ('Name:\tpython\nState:\tS (sleeping)\n'
          'voluntary_ctxt_switches:\t%d\nnonvoluntary_ctxt_switches:\t%d\n')


def _threads(proc, pid, counts):
    for tid, (voluntary, forced) in counts.items():
        task = proc / str(pid) / 'task' / str(tid)
        task.mkdir(parents=True)
        (task / 'status').write_text(STATUS % (voluntary, forced))


def test_switches_add_up_every_thread_both_kinds(tmp_path):
    _threads(tmp_path, 42, {42: (10, 1), 43: (200, 7), 44: (0, 3)})
    assert metrics._switches(42, proc=str(tmp_path)) == 221


def test_switches_of_a_process_gone_are_none(tmp_path):
    assert metrics._switches(42, proc=str(tmp_path)) is None


def test_switches_of_a_live_process_are_counted():
    assert metrics._switches(os.getpid()) > 0


def test_machine_sample_splits_busy_from_idle(tmp_path):
    stat = tmp_path / 'stat'
    # user nice system idle iowait irq softirq steal guest guest_nice
    stat.write_text('cpu  100 5 50 1000 20 3 7 0 40 0\ncpu0 1 2 3\n')
    busy, idle = metrics.machine_sample(str(stat))
    tick = metrics.CLOCK_TICK
    # Guest time is already in user time: not counted twice.
    assert busy == pytest.approx((100 + 5 + 50 + 3 + 7) / tick)
    assert idle == pytest.approx((1000 + 20) / tick)


def test_machine_used_is_the_difference():
    assert metrics.machine_used((10.0, 50.0), (12.5, 51.0)) == {
        'busy': 2.5, 'idle': 1.0}


def test_used_between_counts_new_processes_from_zero():
    before = {'api': {1: 100, 2: 50}, 'conductor': {3: 7}}
    after = {'api': {1: 130, 4: 9}, 'conductor': {3: 7}, 'rabbitmq': {5: 2}}
    # pid 2 ended (lost), pid 4 and the broker appeared (from zero).
    assert metrics.used_between(before, after) == {
        'api': 39, 'conductor': 0, 'rabbitmq': 2}
