"""SIGHUP reloads the mutable options in place (nova_lite/reload.py)."""

import signal
from unittest import mock

import cotyledon
from oslo_service.backend._threading import service as threading_service

from nova_lite.conductor import manager as conductor_manager
from nova_lite import reload
from nova_lite import service


def test_the_oslo_service_wrapper_it_patches_is_still_there():
    """The class every oslo.service worker runs is the one patched: if
    oslo.service moves it, SIGHUP would silently restart workers again."""
    assert issubclass(threading_service.ServiceWrapper, cotyledon.Service)
    launcher = threading_service.ServiceLauncher(mock.Mock(
        graceful_shutdown_timeout=1))
    with mock.patch.object(threading_service, '_get_service_manager',
                           return_value=(mock.Mock(), mock.Mock())) as get:
        launcher.launch_service(service._Notifying(mock.Mock(), None))
    manager = get.return_value[1]
    assert manager.add.call_args[0][0] is threading_service.ServiceWrapper
    assert hasattr(signal, 'SIGHUP')


def test_reload_mutates_and_resets_without_stopping(conf):
    saved = threading_service.ServiceWrapper.reload
    try:
        reload.install()
        wrapped = mock.Mock()
        wrapper = threading_service.ServiceWrapper(
            0, service._Notifying(wrapped, None))
        with mock.patch.object(conf.conf, 'mutate_config_files') as mutate, \
                mock.patch('os.kill') as kill:
            wrapper.reload()
        mutate.assert_called_once_with()
        wrapped.reset.assert_called_once_with()
        kill.assert_not_called()
    finally:
        threading_service.ServiceWrapper.reload = saved


def test_the_conductor_applies_mutated_check_intervals(conf):
    conf.config(group='conductor', lost_build_check_interval=5,
                build_timeout_check_interval=60)
    with mock.patch.object(conductor_manager.scheduler_rpcapi,
                           'SchedulerAPI'), \
            mock.patch.object(conductor_manager.compute_rpcapi,
                              'ComputeAPI'):
        manager = conductor_manager.ConductorManager(host='c')
    assert manager._periodic_spacing['_redrive_lost_builds'] == 5
    conf.config(group='conductor', lost_build_check_interval=2,
                build_timeout_check_interval=7)
    manager.reset()
    assert manager._periodic_spacing['_redrive_lost_builds'] == 2
    assert manager._periodic_spacing['_fail_stuck_builds'] == 7


def test_a_service_group_resets_each_service():
    services = [mock.Mock(), mock.Mock()]
    service.ServiceGroup(services, service.DB_DIRECT).reset()
    for svc in services:
        svc.reset.assert_called_once_with()
