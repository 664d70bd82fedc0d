"""A claim lost to a concurrent change (another claim, or a delete that
freed room) is retried on the refreshed host while it still fits."""

import random

import pytest

from nova_lite import exception
from nova_lite.scheduler import filter_scheduler
from nova_lite.scheduler.filters import ram_filter
from nova_lite.scheduler.weighers import ram

from . import fakes

UUIDS = ['00000000-0000-4000-8000-00000000000%d' % i for i in range(1, 4)]


class ChurnClaimer(fakes.FakeClaimer):
    """Loses the first ``losses`` claims on each host (their provider
    changed meanwhile)."""

    def __init__(self, losses):
        super().__init__()
        self.losses = losses
        self.tries = {}

    def claim(self, host_state, consumer_uuid, spec_obj, resources):
        count = self.tries[host_state.host] = (
            self.tries.get(host_state.host, 0) + 1)
        if count <= self.losses:
            raise exception.ClaimConflict(uuid=host_state.uuid,
                                          generation=host_state.generation)
        return super().claim(host_state, consumer_uuid, spec_obj, resources)


def _delete_on_refresh(freed_mb):
    """A refresh that finds a server deleted: ``freed_mb`` MB more free,
    and a new generation."""
    def refresh(host):
        host.consume({'MEMORY_MB': -freed_mb}, host.generation + 1)
    return refresh


def _schedule(hosts, claimer, refresh, memory_mb=1024, whole=True):
    scheduler = filter_scheduler.FilterScheduler(
        [ram_filter.RamFilter()], [ram.RAMWeigher()],
        rng=random.Random(0), whole_population=whole)
    return scheduler.select_destinations(
        fakes.spec(memory_mb=memory_mb), hosts, UUIDS[:1], claimer,
        refresh_host=refresh)


@pytest.mark.parametrize('whole', [True, False])
def test_lost_claim_on_a_host_that_still_fits_is_retried(whole):
    # One roomy node with deletes running: the case, where the
    # boot used to end in NoValidHost ("claims: 1 -> 0").
    host = fakes.host('only', memory_mb=8192, used={'MEMORY_MB': 4096})
    claimer = ChurnClaimer(losses=2)
    result = _schedule([host], claimer, _delete_on_refresh(512), whole=whole)
    assert [s.service_host for s in result[0]] == ['only']
    assert claimer.tries == {'only': 3}
    assert [c[1] for c in claimer.claims] == ['only']
    # Two deletes seen, then the claim.
    assert host.free_ram_mb == 8192 - 4096 + 1024 - 1024


@pytest.mark.parametrize('whole', [True, False])
def test_retries_are_bounded_then_the_next_host(whole):
    best = fakes.host('best', memory_mb=8192)
    other = fakes.host('other', memory_mb=4096)
    claimer = ChurnClaimer(losses=100)
    claimer.tries['other'] = 100       # 'other' claims at once
    result = _schedule([best, other], claimer, _delete_on_refresh(0),
                       whole=whole)
    assert [s.service_host for s in result[0]][0] == 'other'
    assert claimer.tries['best'] == filter_scheduler.CLAIM_RETRIES + 1


def test_all_retries_lost_is_explained():
    host = fakes.host('only', memory_mb=8192)
    with pytest.raises(exception.NoValidHost) as caught:
        _schedule([host], ChurnClaimer(losses=100), _delete_on_refresh(0))
    assert caught.value.format_message().endswith(
        'claims: 1 -> 0 (1 changed by concurrent claims)')


def test_refreshed_host_that_no_longer_fits_is_not_retried():
    host = fakes.host('only', memory_mb=2048)
    other = fakes.host('other', memory_mb=1500)
    claimer = ChurnClaimer(losses=1)
    claimer.tries['other'] = 1

    def refresh(found):
        # Another scheduler's claim took the room.
        found.consume({'MEMORY_MB': 1536}, found.generation + 1)
    result = _schedule([host, other], claimer, refresh)
    assert result[0][0].service_host == 'other'
    assert claimer.tries['only'] == 1


def test_refresh_that_sees_no_change_moves_on():
    # The refresh read the same generation (nothing learned): claiming
    # again would lose again.
    host = fakes.host('only', memory_mb=8192)
    claimer = ChurnClaimer(losses=1)
    with pytest.raises(exception.NoValidHost):
        _schedule([host], claimer, lambda found: None)
    assert claimer.tries == {'only': 1}
