"""Regression: a compute reporting while the scheduler starts is not lost.

The scheduler loaded its host states in ``init_host``, before its RPC
server bound the fanout queue that carries change notices. A compute that
reported in between (daemons started together do) sent its notice to no
one, and its node stayed unschedulable until the periodic resync. The
scheduler now reads the host states again once it consumes.
"""

from unittest import mock

from nova_lite.scheduler import host_manager
from nova_lite.scheduler import manager
from nova_lite import service

from . import fakes

NODE = '00000000-0000-0000-0000-000000000001'


def test_node_reported_before_the_fanout_queue_exists_is_seen():
    loader = fakes.FakeLoader()
    mgr = manager.SchedulerManager(
        host='sched1', host_manager=host_manager.HostManager(loader=loader),
        claimer_factory=lambda context: fakes.FakeClaimer())
    mgr.init_host()
    assert mgr.host_manager.get_host_states(None) == []
    # The compute reports now; its notice finds no queue to go to.
    loader.nodes.append(fakes.compute_node(NODE, 'c1'))
    loader.services_.append(fakes.service('c1'))
    loader.summaries_[NODE] = fakes.summary(NODE)
    mgr.post_start_hook()
    assert [s.uuid for s in mgr.host_manager.get_host_states(None)] == [NODE]


def test_post_start_hook_runs_once_the_rpc_server_consumes(monkeypatch):
    """The order the fix relies on, as nova_lite.service keeps it."""
    events = []
    fake_manager = mock.Mock()
    fake_manager.init_host.side_effect = lambda: events.append('init_host')
    fake_manager.post_start_hook.side_effect = (
        lambda: events.append('post_start_hook'))
    server = mock.Mock()
    server.start.side_effect = lambda: events.append('consuming')
    monkeypatch.setattr(service.rpc, 'get_server', lambda *a: server)
    monkeypatch.setattr(service.importutils, 'import_class',
                        lambda name: lambda host: fake_manager)
    svc = service.Service('nova-lite-scheduler', host='sched1')
    monkeypatch.setattr(svc, '_register', mock.Mock())
    monkeypatch.setattr(service, 'check_service_versions', mock.Mock())
    monkeypatch.setattr(svc, 'tg', mock.Mock())
    svc.start()
    assert events == ['init_host', 'consuming', 'post_start_hook']
