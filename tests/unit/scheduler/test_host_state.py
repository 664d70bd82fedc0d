"""HostState: Nova's attributes derived from placement, fit and consume."""

import pytest

from nova_lite.scheduler import host_state

from . import fakes

U1 = '00000000-0000-0000-0000-000000000001'


def _state(inventories, used=None, stats=None, running_vms=0, **svc):
    node = fakes.compute_node(U1, 'h1', nodename='n1', stats=stats,
                              running_vms=running_vms)
    summary = fakes.summary(U1, 'n1', generation=7, used=used,
                            inventories=inventories, traits={'CUSTOM_X'},
                            aggregates={'agg1'})
    return host_state.HostState.from_records(
        node, fakes.service('h1', **svc), summary)


def test_capacity_attributes_come_from_placement():
    state = _state(
        {'VCPU': fakes.inventory(16, reserved=2, ratio=4.0),
         'MEMORY_MB': fakes.inventory(32768, reserved=512, ratio=1.5),
         'DISK_GB': fakes.inventory(200, reserved=10, ratio=2.0)},
        used={'VCPU': 5, 'MEMORY_MB': 4096, 'DISK_GB': 40})
    assert (state.host, state.nodename, state.uuid) == ('h1', 'n1', U1)
    assert state.hypervisor_hostname == 'n1'
    assert state.generation == 7
    assert state.traits == {'CUSTOM_X'}
    assert state.provider_aggregates == {'agg1'}
    assert state.aggregates == []
    assert state.total_usable_ram_mb == 32768
    assert state.free_ram_mb == 32768 - 512 - 4096
    assert state.ram_allocation_ratio == 1.5
    assert state.vcpus_total == 16
    assert state.vcpus_used == 5 + 2
    assert state.cpu_allocation_ratio == 4.0
    assert state.total_usable_disk_gb == 200
    assert state.free_disk_mb == (200 - 10 - 40) * 1024
    assert state.disk_allocation_ratio == 2.0
    assert state.hypervisor_type == 'fake'
    assert state.availability_zone is None
    assert state.instances == {} and state.metrics == {}
    assert state.limits == {} and state.failed_builds == 0


def test_free_ram_goes_negative_under_overcommit():
    state = _state({'MEMORY_MB': fakes.inventory(1000, ratio=2.0)},
                   used={'MEMORY_MB': 1500})
    assert state.free_ram_mb == -500


def test_missing_inventories_give_zero_capacity():
    state = _state({})
    assert state.total_usable_ram_mb == 0
    assert state.vcpus_total == 0
    assert state.free_disk_mb == 0
    assert state.resource_shortfall({'VCPU': 1}) == 'VCPU'


def test_instance_and_io_counts_from_stats():
    state = _state({}, stats={'num_instances': '4', 'io_workload': '2'},
                   running_vms=9)
    assert state.num_instances == 4
    assert state.num_io_ops == 2


def test_instance_count_falls_back_to_running_vms():
    state = _state({}, stats={'io_workload': 'garbage'}, running_vms=3)
    assert state.num_instances == 3
    assert state.num_io_ops == 0


@pytest.mark.parametrize('amount,fits', [(48, True), (49, False)])
def test_fit_uses_placement_capacity(amount, fits):
    # (16 - 4) * 4.0 = 48, of which 0 used.
    state = _state({'VCPU': fakes.inventory(16, reserved=4, ratio=4.0,
                                            max_unit=64)})
    assert state.fits({'VCPU': amount}) is fits


def test_fit_counts_current_usage():
    state = _state({'MEMORY_MB': fakes.inventory(1024)},
                   used={'MEMORY_MB': 1000})
    assert state.fits({'MEMORY_MB': 24})
    assert state.resource_shortfall({'MEMORY_MB': 25}) == 'MEMORY_MB'


@pytest.mark.parametrize('amount', [1, 9, 10])
def test_fit_respects_min_max_and_step(amount):
    state = _state({'VCPU': fakes.inventory(100, min_unit=2, max_unit=8,
                                            step_size=2)})
    assert not state.fits({'VCPU': amount})
    assert state.fits({'VCPU': 4})


def test_shortfall_names_the_first_class_that_does_not_fit():
    state = _state({'VCPU': fakes.inventory(4),
                    'MEMORY_MB': fakes.inventory(512)})
    assert state.resource_shortfall(
        {'VCPU': 1, 'MEMORY_MB': 1024, 'DISK_GB': 1}) == 'MEMORY_MB'
    assert state.resource_shortfall({'VCPU': 1, 'DISK_GB': 1}) == 'DISK_GB'


def test_consume_applies_a_claim():
    state = _state({'VCPU': fakes.inventory(4),
                    'MEMORY_MB': fakes.inventory(2048),
                    'DISK_GB': fakes.inventory(10)},
                   stats={'num_instances': '1', 'io_workload': '0'})
    state.consume({'VCPU': 2, 'MEMORY_MB': 1024, 'DISK_GB': 4}, 8)
    assert state.generation == 8
    assert state.usages['VCPU'] == 2
    assert state.vcpus_used == 2
    assert state.free_ram_mb == 1024
    assert state.free_disk_mb == 6 * 1024
    assert state.num_instances == 2
    assert state.num_io_ops == 1
    assert state.fits({'VCPU': 2})
    assert not state.fits({'VCPU': 3})


def test_consume_does_not_touch_the_summary_it_was_built_from():
    summary = fakes.summary(U1, used={'VCPU': 1})
    state = host_state.HostState.from_records(
        fakes.compute_node(U1, 'h1'), None, summary)
    state.consume({'VCPU': 1}, 2)
    assert summary.usages['VCPU'] == 1


def test_service_up_and_enabled():
    state = _state({})
    assert state.service_up is True
    assert state.service['disabled'] is False
    assert state.service.host == 'h1'


def test_service_down_and_disabled():
    state = _state({}, up=False, disabled=True, disabled_reason='maint')
    assert state.service_up is False
    assert state.service.disabled is True
    assert state.service['disabled_reason'] == 'maint'


def test_no_service_means_down():
    state = host_state.HostState.from_records(
        fakes.compute_node(U1, 'h1'), None, fakes.summary(U1))
    assert state.service is None
    assert state.service_up is False


def test_explicit_up_overrides_the_service():
    state = _state({})
    state.update_service(fakes.service('h1', up=True), up=False)
    assert state.service_up is False


def test_service_view_missing_attribute_raises_attribute_error():
    view = host_state.ServiceView(disabled=False)
    with pytest.raises(AttributeError):
        view.nonexistent  # noqa: B018
