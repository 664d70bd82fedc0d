"""The scheduling core, with in-memory hosts and claims."""

import random

import pytest

from nova_lite import exception
from nova_lite.scheduler import filter_scheduler
from nova_lite.scheduler.filters import compute_filter
from nova_lite.scheduler.filters import ram_filter
from nova_lite.scheduler import host_state
from nova_lite.scheduler.weighers import ram

from . import fakes

UUIDS = ['00000000-0000-0000-0000-00000000000%d' % i for i in range(1, 10)]


def _scheduler(filters=None, weighers=None, seed=0):
    if filters is None:
        filters = [compute_filter.ComputeFilter(), ram_filter.RamFilter()]
    if weighers is None:
        weighers = [ram.RAMWeigher()]
    return filter_scheduler.FilterScheduler(filters, weighers,
                                            rng=random.Random(seed))


def _ram_hosts(*free_mb):
    """Hosts named h<i>, 16 VCPUs, 100 GB, with ``free_mb`` MB of RAM."""
    return [fakes.host('h%d' % i, vcpus=16, memory_mb=mb)
            for i, mb in enumerate(free_mb)]


def _select(hosts, spec=None, count=1, claimer=None, scheduler=None,
            refreshed=None, **kwargs):
    claimer = claimer or fakes.FakeClaimer()
    refresh = refreshed.append if refreshed is not None else None
    return (scheduler or _scheduler()).select_destinations(
        spec or fakes.spec(), hosts, UUIDS[:count], claimer,
        refresh_host=refresh, **kwargs)


def _names(selections):
    return [s.service_host for s in selections]


def test_single_instance_claims_the_heaviest_host():
    hosts = _ram_hosts(2048, 8192, 4096)
    claimer = fakes.FakeClaimer()
    result = _select(hosts, fakes.spec(memory_mb=1024), claimer=claimer)
    assert len(result) == 1
    assert _names(result[0]) == ['h1', 'h2', 'h0']
    assert claimer.claims == [
        (UUIDS[0], 'h1', {'VCPU': 1, 'MEMORY_MB': 1024, 'DISK_GB': 1})]
    chosen = result[0][0]
    assert chosen.compute_node_uuid == hosts[1].uuid
    assert chosen.nodename == 'h1'
    assert chosen.allocations == {hosts[1].uuid: {
        'VCPU': 1, 'MEMORY_MB': 1024, 'DISK_GB': 1}}
    # The claim is applied to the state: generation and usage.
    assert hosts[1].generation == 2
    assert hosts[1].free_ram_mb == 8192 - 1024


def test_instances_see_the_claims_of_earlier_ones():
    hosts = _ram_hosts(4096, 3000)
    claimer = fakes.FakeClaimer()
    result = _select(hosts, fakes.spec(memory_mb=2048), count=3,
                     claimer=claimer)
    # 4096 -> h0 (2048 left), 3000 > 2048 -> h1 (952 left), 2048 -> h0.
    assert [r[0].service_host for r in result] == ['h0', 'h1', 'h0']
    assert [c[1] for c in claimer.claims] == ['h0', 'h1', 'h0']
    assert hosts[0].free_ram_mb == 0
    assert hosts[0].num_instances == 2


def test_full_host_drops_out_for_later_instances():
    hosts = _ram_hosts(1000, 600)
    result = _select(hosts, fakes.spec(memory_mb=512), count=2)
    assert [r[0].service_host for r in result] == ['h0', 'h1']
    # h0 had room for one only: not even an alternate for the second.
    assert _names(result[1]) == ['h1']


def test_alternates_follow_weighed_order_up_to_max_attempts(conf):
    conf.config(group='scheduler', max_attempts=3)
    hosts = _ram_hosts(1024, 5120, 3072, 4096, 2048)
    result = _select(hosts)
    assert _names(result[0]) == ['h1', 'h3', 'h2']
    assert result[0][1].compute_node_uuid == hosts[3].uuid


def test_max_attempts_one_gives_no_alternates(conf):
    conf.config(group='scheduler', max_attempts=1)
    assert _names(_select(_ram_hosts(1024, 2048))[0]) == ['h1']


def test_without_alternates_only_the_claimed_host():
    result = _select(_ram_hosts(1024, 2048, 4096), count=2,
                     return_alternates=False)
    assert [_names(r) for r in result] == [['h2'], ['h2']]


def test_claim_conflict_refreshes_and_moves_on():
    hosts = _ram_hosts(1024, 4096, 2048)
    claimer = fakes.FakeClaimer(conflicts={hosts[1].uuid})
    refreshed = []
    result = _select(hosts, claimer=claimer, refreshed=refreshed)
    assert refreshed == [hosts[1]]
    assert _names(result[0]) == ['h2', 'h0']
    assert [c[1] for c in claimer.claims] == ['h2']
    # The lost host was not consumed.
    assert hosts[1].free_ram_mb == 4096
    assert hosts[1].generation == 1


def test_failure_releases_earlier_claims():
    hosts = _ram_hosts(1024, 1024)
    claimer = fakes.FakeClaimer()
    refreshed = []
    with pytest.raises(exception.NoValidHost) as info:
        _select(hosts, fakes.spec(memory_mb=1024), count=3, claimer=claimer,
                refreshed=refreshed)
    assert claimer.released == UUIDS[:2]
    assert {h.host for h in refreshed} == {'h0', 'h1'}
    assert 'Instance 3 of 3:' in info.value.format_message()


def test_unexpected_claim_error_releases_and_propagates():
    class Failing(fakes.FakeClaimer):
        def claim(self, host_state, consumer_uuid, spec_obj, resources):
            if self.claims:
                raise RuntimeError('database gone')
            return super().claim(host_state, consumer_uuid, spec_obj,
                                 resources)

    claimer = Failing()
    with pytest.raises(RuntimeError):
        _select(_ram_hosts(4096, 4096), count=2, claimer=claimer)
    assert claimer.released == [UUIDS[0]]


def _ratio_only_host(name, total_mb):
    """A host whose MEMORY_MB fits 2x ``total_mb`` by placement, but whose
    physical RAM is ``total_mb``."""
    uuid = fakes.host(name).uuid
    inventories = {'VCPU': fakes.inventory(16),
                   'MEMORY_MB': fakes.inventory(total_mb, ratio=2.0,
                                                max_unit=4 * total_mb),
                   'DISK_GB': fakes.inventory(100)}
    return host_state.HostState.from_records(
        fakes.compute_node(uuid, name), fakes.service(name),
        fakes.summary(uuid, inventories=inventories))


def test_no_valid_host_explains_every_step():
    hosts = ([fakes.host('small%d' % i, memory_mb=256) for i in range(6)]
             + [fakes.host('down%d' % i, up=False) for i in range(2)]
             + [fakes.host('off', disabled=True)]
             + [_ratio_only_host('tiny%d' % i, 1024) for i in range(3)])
    with pytest.raises(exception.NoValidHost) as info:
        _select(hosts, fakes.spec(memory_mb=2048))
    assert info.value.format_message() == (
        'No valid host was found. '
        'placement (VCPU=1, MEMORY_MB=2048, DISK_GB=1): 12 -> 6 '
        '(6 lack MEMORY_MB); '
        'ComputeFilter: 6 -> 3 (2 down, 1 disabled); '
        'RamFilter: 3 -> 0 (3 have less than 2048 MB in all)')


def test_no_valid_host_names_the_shortfall():
    # With a ratio below 1, placement's (total - reserved) * ratio leaves
    # 12288 MB, while the RamFilter's total * ratio - reserved leaves 8192.
    hosts = [fakes.host('h%d' % i, memory_mb=32768, ram_ratio=0.5,
                        reserved={'MEMORY_MB': 8192}) for i in range(3)]
    hosts.append(fakes.host('h3', memory_mb=4096))
    with pytest.raises(exception.NoValidHost) as info:
        _select(hosts, fakes.spec(memory_mb=10240))
    assert info.value.format_message() == (
        'No valid host was found. '
        'placement (VCPU=1, MEMORY_MB=10240, DISK_GB=1): 4 -> 3 '
        '(1 lack MEMORY_MB); ComputeFilter: 3 -> 3; '
        'RamFilter: 3 -> 0 (3 need 10240 MB, best has 8192 MB)')


def test_no_hosts_at_all():
    with pytest.raises(exception.NoValidHost) as info:
        _select([])
    assert 'No compute nodes are known' in info.value.format_message()


def test_all_claims_lost_is_explained():
    hosts = _ram_hosts(1024, 2048)
    claimer = fakes.FakeClaimer(conflicts={h.uuid for h in hosts})
    refreshed = []
    with pytest.raises(exception.NoValidHost) as info:
        _select(hosts, claimer=claimer, refreshed=refreshed)
    assert info.value.format_message().endswith(
        'claims: 2 -> 0 (2 changed by concurrent claims)')
    assert len(refreshed) == 2


def test_host_subset_size_picks_among_the_best(conf):
    conf.config(group='filter_scheduler', host_subset_size=3)
    chosen = set()
    for seed in range(40):
        hosts = _ram_hosts(1024, 5120, 3072, 4096, 2048)
        result = _select(hosts, scheduler=_scheduler(seed=seed))
        chosen.add(result[0][0].service_host)
        # The rest stay in weighed order behind the chosen one.
        rest = [n for n in ['h1', 'h3', 'h2', 'h4', 'h0']
                if n != result[0][0].service_host]
        assert _names(result[0])[1:] == rest[:2]
    assert chosen == {'h1', 'h3', 'h2'}


def test_subset_of_one_always_takes_the_best():
    for seed in range(10):
        result = _select(_ram_hosts(1024, 5120, 3072),
                         scheduler=_scheduler(seed=seed))
        assert result[0][0].service_host == 'h1'


def test_shuffle_best_same_weighed_hosts(conf):
    def first_choices():
        return {_select(_ram_hosts(4096, 4096, 4096, 1024),
                        scheduler=_scheduler(seed=seed))[0][0].service_host
                for seed in range(30)}

    assert first_choices() == {'h0'}
    conf.config(group='filter_scheduler',
                shuffle_best_same_weighed_hosts=True)
    assert first_choices() == {'h0', 'h1', 'h2'}


def test_once_per_request_filter_is_not_rerun_but_its_result_holds():
    class Counting(compute_filter.ComputeFilter):
        calls = 0

        def host_passes(self, host_state, spec_obj):
            Counting.calls += 1
            return super().host_passes(host_state, spec_obj)

    hosts = [fakes.host('up', memory_mb=4096),
             fakes.host('down', memory_mb=65536, up=False)]
    result = _select(hosts, count=3, scheduler=_scheduler(
        filters=[Counting()]))
    assert [r[0].service_host for r in result] == ['up'] * 3
    assert Counting.calls == 2


def test_ignore_hosts(conf):
    hosts = _ram_hosts(1024, 4096, 2048)
    result = _select(hosts, fakes.spec(ignore_hosts=['H1']))
    assert _names(result[0]) == ['h2', 'h0']


def test_forced_host_skips_filters_but_not_placement():
    hosts = [fakes.host('a', up=False), fakes.host('b', memory_mb=65536)]
    result = _select(hosts, fakes.spec(force_hosts=['a']))
    assert _names(result[0]) == ['a']

    with pytest.raises(exception.NoValidHost) as info:
        _select([fakes.host('a', memory_mb=256)],
                fakes.spec(force_nodes=['a']))
    assert info.value.format_message().startswith(
        'No valid host was found. requested hosts: 1 -> 1; placement')


def test_forced_host_not_found():
    with pytest.raises(exception.NoValidHost) as info:
        _select(_ram_hosts(1024), fakes.spec(force_hosts=['elsewhere']))
    assert 'requested hosts: 1 -> 0 (1 not a forced host)' in (
        info.value.format_message())
