"""The host manager's Population stays equal to one built afresh from
its host states, through claims, change notices, aggregate changes,
service changes and nodes coming and going."""

import numpy as np

from nova_lite import objects
from nova_lite.scheduler import filter_scheduler
from nova_lite.scheduler import host_manager
from nova_lite.scheduler import host_state
from nova_lite.scheduler import population as population_mod
from nova_lite.scheduler.weighers import cpu

from . import fakes

U = ['00000000-0000-4000-8000-0000000002%02d' % i for i in range(12)]
AGG = 'aaaaaaaa-0000-4000-8000-000000000011'
GROUP = 'bbbbbbbb-0000-4000-8000-000000000011'


class Clock:
    now = 1000.0

    def __call__(self):
        return self.now


def _instance(uuid, groups=()):
    return host_state.HostInstance(uuid, 'p', 'active', None, None, {},
                                   frozenset(groups))


def _loader():
    nodes = [fakes.compute_node(U[i], 'h%d' % (i // 2),
                                nodename='n%d' % i) for i in range(6)]
    services = [fakes.service('h%d' % i) for i in range(3)]
    summaries = {U[i]: fakes.summary(U[i], memory_mb=1024 * (i + 1),
                                     traits=['CUSTOM_A'] if i % 2 else [])
                 for i in range(6)}
    aggregates = [objects.Aggregate(uuid=AGG, name='a', hosts=['h1'],
                                    metadata={'cpu_weight_multiplier': '2'})]
    instances = {U[0]: [_instance('i0', [GROUP])], U[3]: [_instance('i3')]}
    return fakes.FakeLoader(nodes, services, summaries, aggregates,
                            instances)


def _snapshot(population):
    """Everything the fast paths read, in row order of present hosts."""
    rows = population.mask().nonzero()[0]
    resources = {rc: [getattr(population.resource(rc), field)[rows].tolist()
                      for field in ('min_unit', 'max_unit', 'capacity',
                                    'used', 'free')]
                 for rc in ('VCPU', 'MEMORY_MB', 'DISK_GB')}
    weigher = cpu.CPUWeigher()
    multiplier = np.broadcast_to(weigher.multiplier_population(population),
                                 (population.size,))
    index = population.index
    return dict(
        hosts=[h.uuid for h in population],
        numeric={name: population.column(name)[rows].tolist()
                 for name in population_mod.NUMERIC},
        service_ok=population.service_ok[rows].tolist(),
        resources=resources,
        trait=population.derived(('t', 'A'), lambda h: 'CUSTOM_A' in
                                 h.traits, bool)[rows].tolist(),
        multiplier=multiplier[rows].tolist(),
        instances=index.count_per_row(['i0', 'i3', 'i9'])[rows].tolist(),
        group=[population.hosts[r].uuid for r in index.group_rows(GROUP)])


def _assert_current(manager):
    population = manager.get_population(None)
    population.sync()
    fresh = population_mod.Population(list(manager._states.values()))
    assert _snapshot(population) == _snapshot(fresh)
    return population


def test_population_follows_every_change():
    loader = _loader()
    clock = Clock()
    manager = host_manager.HostManager(loader=loader, clock=clock)
    population = _assert_current(manager)
    # Build the lazy caches, so that their upkeep is tested too.
    _snapshot(population)

    # A claim of this scheduler.
    state = manager._states[U[1]]
    state.consume({'VCPU': 2, 'MEMORY_MB': 512}, 9,
                  filter_scheduler.claimed_instance(fakes.spec(), 'i9'))
    _assert_current(manager)

    # A compute's report: usage and traits move, an instance joins.
    loader.summaries_[U[2]] = fakes.summary(U[2], used={'VCPU': 3},
                                            traits=['CUSTOM_A'])
    loader.instances_[U[2]] = [_instance('i3', [GROUP])]
    manager.mark_dirty([U[2]])
    _assert_current(manager)

    # An aggregate's metadata changes (its hosts follow).
    loader.aggregates_[0].metadata = {'cpu_weight_multiplier': '-1'}
    loader.aggregates_[0].hosts = ['h0', 'h1']
    manager.mark_dirty([AGG])
    _assert_current(manager)

    # A service is disabled, then the cache expires.
    loader.services_[2] = fakes.service('h2', disabled=True)
    clock.now += 60
    _assert_current(manager)

    # A node goes, another comes.
    loader.nodes = [n for n in loader.nodes if n.uuid != U[4]]
    loader.nodes.append(fakes.compute_node(U[6], 'h3'))
    loader.services_.append(fakes.service('h3'))
    loader.summaries_[U[6]] = fakes.summary(U[6])
    manager.mark_dirty([U[4], U[6]])
    population = _assert_current(manager)
    assert [h.uuid for h in population] == U[:4] + [U[5], U[6]]

    # A full resync.
    manager.load_all(None)
    _assert_current(manager)


def test_compaction_keeps_the_order():
    hosts = [fakes.host('h%d' % i) for i in range(8)]
    population = population_mod.Population(hosts, owned=True)
    for host in hosts[:5]:
        population.discard(host)
    population.sync(compact=True)
    assert population.size == 3
    assert list(population) == hosts[5:]
    hosts[6].consume({'VCPU': 1}, 5)
    population.sync()
    assert population.column('vcpus_used').tolist() == [0.0, 1.0, 0.0]


def test_a_partition_of_many_dead_keys_is_built_afresh():
    hosts = [fakes.host('h%d' % i) for i in range(3)]
    population = population_mod.Population(hosts, owned=True)

    def key(host):
        return host.vcpus_used

    first = population.partition('used', key)
    for generation in range(2000):
        hosts[0].consume({'VCPU': 1}, generation)
        population.sync()
        part = population.partition('used', key)
    assert part is not first
    assert len(part.keys) < 1100
    passed = population.evaluate('used', key, lambda h: h.vcpus_used > 5)
    assert passed.tolist() == [True, False, False]
