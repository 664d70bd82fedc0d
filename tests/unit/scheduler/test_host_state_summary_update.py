"""A provider summary update keeps what its inventories, traits and
aggregates gave when they are equal, and takes them again when they
changed, as a host state built afresh from the summary has them."""

from nova_lite.scheduler import host_state

from . import fakes

UUID = '00000000-0000-4000-8000-000000000501'
AGG = 'aaaaaaaa-0000-4000-8000-000000000501'


def _state(summary):
    return host_state.HostState.from_records(
        fakes.compute_node(UUID, 'h1'), fakes.service('h1'), summary)


def _same(state, summary):
    fresh = _state(summary)
    for name in ('inventories', 'traits', 'provider_aggregates',
                 'vcpus_total', 'vcpus_used', 'free_ram_mb',
                 'free_disk_mb', 'generation'):
        assert getattr(state, name) == getattr(fresh, name), name
    assert state.resource_limits() == fresh.resource_limits()
    assert state.usages == fresh.usages


def test_changed_inventories_traits_and_aggregates_are_taken():
    state = _state(fakes.summary(UUID, vcpus=8, used={'VCPU': 6}))
    assert not state.fits({'VCPU': 4})
    bigger = fakes.summary(UUID, generation=2, vcpus=16,
                           used={'VCPU': 6}, traits=['CUSTOM_X'],
                           aggregates=[AGG])
    state.update(summary=bigger)
    _same(state, bigger)
    assert state.fits({'VCPU': 4})
    assert state.traits == {'CUSTOM_X'}
    assert state.provider_aggregates == {AGG}


def test_only_new_usages():
    first = fakes.summary(UUID, used={'VCPU': 2}, traits=['CUSTOM_X'])
    state = _state(first)
    inventories, traits = state.inventories, state.traits
    second = fakes.summary(UUID, generation=2, used={'VCPU': 7},
                           traits=['CUSTOM_X'])
    state.update(summary=second)
    _same(state, second)
    assert state.inventories is inventories and state.traits is traits
    assert not state.fits({'VCPU': 2})
