"""A population reset reads HostStates through their quick paths
(``resource_values``, every number at once); the columns must be those
it reads of any other host object with the same attributes."""

import random
import types

import numpy as np

from nova_lite.scheduler import host_state
from nova_lite.scheduler import population as population_mod
from nova_lite.scheduler import population_resources

from . import random_fleet

RESOURCE_FIELDS = ('min_unit', 'max_unit', 'step_size', 'capacity', 'used',
                   'free', 'odd_steps')


class Plain:
    """A host with the attributes of ``state`` alone (no quick paths)."""

    def __init__(self, state):
        self._state = state

    def __getattr__(self, name):
        if name == 'resource_values':
            raise AttributeError(name)
        return getattr(self._state, name)


def _columns(population):
    numbers = {name: population.column(name).tolist()
               for name in population_mod.NUMERIC}
    resources = {}
    for rc in ('VCPU', 'MEMORY_MB', 'DISK_GB', 'CUSTOM_X'):
        found = population.resource(rc)
        resources[rc] = found and [
            np.asarray(getattr(found, field)).tolist()
            for field in RESOURCE_FIELDS]
    return numbers, resources, population.service_ok[:population.size]


def test_reset_reads_host_states_as_any_host():
    for seed in range(30):
        states, _aggregates = random_fleet.fleet(random.Random(seed))
        quick = population_mod.Population(states)
        plain = population_mod.Population([Plain(s) for s in states])
        numbers, resources, service_ok = _columns(quick)
        assert (numbers, resources) == _columns(plain)[:2]
        assert service_ok.tolist() == _columns(plain)[2].tolist()
        assert any(resources.values())
        for rc, found in resources.items():
            assert found == _expected(states, rc)


def _expected(states, rc):
    """The resource columns of ``rc``, host by host."""
    if not any(rc in state.resource_limits() for state in states):
        return None
    rows = []
    for state in states:
        fit = state.resource_limits().get(rc)
        if fit is None:
            rows.append((-np.inf, np.inf, 1.0, 0.0, 0.0, -np.inf))
            continue
        used = state.usages[rc]
        rows.append((*fit, used, fit[3] - used))
    columns = [list(map(float, column)) for column in zip(*rows, strict=True)]
    return columns + [sum(row[2] != 1 for row in rows)]


def test_a_host_without_some_numbers_reads_zero_for_them():
    class Partial:
        free_ram_mb = 512
        num_instances = None

    population = population_mod.Population([Partial()])
    assert population.column('free_ram_mb').tolist() == [512.0]
    assert population.column('num_instances').tolist() == [0.0]
    assert population.column('vcpus_total').tolist() == [0.0]


class _Numbers:
    """A host whose NUMERIC attributes all hold ``value`` but one."""

    def __init__(self, value, **others):
        for name in population_mod.NUMERIC[:-1]:
            setattr(self, name, others.get(name, value))
        self.pci_stats = ()


def test_numbers_read_at_once_are_those_read_host_by_host():
    hosts = [_Numbers(3), _Numbers(2.5, free_ram_mb=True),
             _Numbers(0, vcpus_used=10 ** 20)]
    block = population_mod._numeric_rows(hosts)
    expected = np.array([population_mod._numeric(h) for h in hosts]).T
    assert block.tolist() == expected.tolist()


def test_none_and_negative_zero_read_as_zero_when_read_at_once():
    # fromiter reads None as NaN and keeps -0.0; ``value or 0`` gives 0.
    hosts = [_Numbers(1.0, free_ram_mb=None), _Numbers(-0.0)]
    block = population_mod._numeric_rows(hosts)
    assert block[:, 0].tolist() == [1.0 if name not in ('free_ram_mb',
                                                        'pci_free')
                                    else 0.0
                                    for name in population_mod.NUMERIC]
    assert not np.signbit(population_mod._numeric_rows([hosts[1]])).any()


def _twin(state, usages):
    """A new HostState of ``state``'s inventories, with ``usages``."""
    twin = host_state.HostState('twin', 'twin', 'twin-uuid')
    twin.update_from_summary(types.SimpleNamespace(
        generation=1, inventories=dict(state.inventories), usages=usages,
        traits=set(), aggregates=set()))
    return twin


def test_hosts_of_one_limits_and_usages_share_their_resource_values():
    states, _aggregates = random_fleet.fleet(random.Random(3))
    for state in states:
        values = state.resource_values()
        assert values == population_resources.resource_values(
            state.resource_limits(), state.usages)
        assert _twin(state, dict(state.usages)).resource_values() is values
        more = dict(state.usages, VCPU=state.usages['VCPU'] + 1)
        other = _twin(state, more).resource_values()
        assert other == population_resources.resource_values(
            state.resource_limits(), more)
        assert other != values or 'VCPU' not in state.inventories
