"""Placement tables on every backend: inventories, traits, claims."""

import concurrent.futures
import threading

from oslo_utils import uuidutils
import pytest
import sqlalchemy as sa
from sqlalchemy import event as sa_event

from nova_lite import context as nl_context
from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import exception
from nova_lite.placement import allocations
from nova_lite.placement import providers
from nova_lite.placement import summaries

INV = {'total': 8, 'reserved': 0, 'min_unit': 1, 'max_unit': 8,
       'step_size': 1, 'allocation_ratio': 1.0}


@pytest.fixture
def ctxt(database):
    return nl_context.get_admin_context()


def _provider(ctxt, name='node1', vcpus=8, ratio=1.0):
    uuid = uuidutils.generate_uuid()
    providers.ensure_provider(ctxt, uuid, name)
    providers.set_inventories(ctxt, uuid, {
        'VCPU': dict(INV, total=vcpus, max_unit=vcpus,
                     allocation_ratio=ratio),
        'MEMORY_MB': dict(INV, total=4096, max_unit=4096, reserved=512)})
    return uuid


def _generation(ctxt, uuid):
    return summaries.get_summaries(ctxt, [uuid])[uuid].generation


def test_set_inventories_bumps_generation_only_on_change(ctxt):
    uuid = _provider(ctxt)
    gen = _generation(ctxt, uuid)
    same = providers.get_inventories(ctxt, uuid)
    assert providers.set_inventories(ctxt, uuid, same) is False
    assert _generation(ctxt, uuid) == gen
    changed = dict(same, VCPU=same['VCPU']._replace(total=16, max_unit=16))
    assert providers.set_inventories(ctxt, uuid, changed) is True
    assert _generation(ctxt, uuid) == gen + 1


def test_invalid_inventory_is_refused(ctxt):
    uuid = _provider(ctxt)
    with pytest.raises(exception.InvalidInventory):
        providers.set_inventories(ctxt, uuid, {
            'VCPU': dict(INV, allocation_ratio=0)})


def test_removing_used_inventory_is_refused(ctxt):
    uuid = _provider(ctxt)
    allocations.claim(ctxt, uuidutils.generate_uuid(), 'p', 'u',
                      {uuid: {'VCPU': 1}})
    with pytest.raises(exception.InventoryInUse):
        providers.set_inventories(ctxt, uuid, {
            'MEMORY_MB': dict(INV, total=4096, max_unit=4096)})


def test_traits_keep_what_the_caller_does_not_own(ctxt):
    uuid = _provider(ctxt)
    providers.set_traits(ctxt, uuid, {'CUSTOM_OPERATOR_SET',
                                      'COMPUTE_VOLUME_EXTEND'})
    owned = {'COMPUTE_VOLUME_EXTEND', 'COMPUTE_NET_ATTACH_INTERFACE'}
    providers.set_traits(ctxt, uuid, {'COMPUTE_NET_ATTACH_INTERFACE'},
                         owned=owned)
    assert providers.get_traits(ctxt, uuid) == {
        'CUSTOM_OPERATOR_SET', 'COMPUTE_NET_ATTACH_INTERFACE'}


def test_unknown_trait_is_refused(ctxt):
    uuid = _provider(ctxt)
    with pytest.raises(exception.InvalidTrait):
        providers.set_traits(ctxt, uuid, {'not_a_trait'})


def test_aggregates_round_trip(ctxt):
    uuid = _provider(ctxt)
    agg = uuidutils.generate_uuid()
    assert providers.set_aggregates(ctxt, uuid, {agg}) is True
    assert providers.get_aggregates(ctxt, uuid) == {agg}
    assert providers.set_aggregates(ctxt, uuid, set()) is True
    assert providers.get_aggregates(ctxt, uuid) == set()


def test_claim_checks_capacity_with_reserved_and_ratio(ctxt):
    uuid = _provider(ctxt, vcpus=2, ratio=2.0)
    allocations.claim(ctxt, 'c1', 'p', 'u', {uuid: {'VCPU': 2}})
    allocations.claim(ctxt, 'c2', 'p', 'u', {uuid: {'VCPU': 2}})
    with pytest.raises(exception.InsufficientCapacity):
        allocations.claim(ctxt, 'c3', 'p', 'u', {uuid: {'VCPU': 1}})
    # MEMORY_MB capacity is total minus reserved: 3584.
    with pytest.raises(exception.InsufficientCapacity):
        allocations.claim(ctxt, 'c4', 'p', 'u', {uuid: {'MEMORY_MB': 3585}})
    assert allocations.get_for_consumer(ctxt, 'c3') == {}


def test_claim_with_stale_generation_conflicts_and_writes_nothing(ctxt):
    uuid = _provider(ctxt)
    gen = _generation(ctxt, uuid)
    allocations.claim(ctxt, 'c1', 'p', 'u', {uuid: {'VCPU': 1}},
                      expected_generations={uuid: gen})
    with pytest.raises(exception.ClaimConflict):
        allocations.claim(ctxt, 'c2', 'p', 'u', {uuid: {'VCPU': 1}},
                          expected_generations={uuid: gen})
    assert allocations.get_for_consumer(ctxt, 'c2') == {}
    assert summaries.get_summaries(ctxt, [uuid])[uuid].usages['VCPU'] == 1


def test_an_expected_claim_on_an_unknown_provider_writes_nothing(ctxt):
    uuid = _provider(ctxt)
    gen = _generation(ctxt, uuid)
    unknown = uuidutils.generate_uuid()
    # The known provider sorts first or last: either way nothing stays.
    with pytest.raises(exception.ResourceProviderNotFound) as caught:
        allocations.claim(ctxt, 'c1', 'p', 'u',
                          {uuid: {'VCPU': 1}, unknown: {'VCPU': 1}},
                          expected_generations={uuid: gen, unknown: 0})
    assert caught.value.kwargs['uuid'] == unknown
    assert allocations.get_for_consumer(ctxt, 'c1') == {}
    assert _generation(ctxt, uuid) == gen


def test_a_conflict_on_the_second_provider_undoes_the_first(ctxt):
    first, second = sorted([_provider(ctxt, 'n1'), _provider(ctxt, 'n2')])
    gens = {first: _generation(ctxt, first),
            second: _generation(ctxt, second)}
    with pytest.raises(exception.ClaimConflict):
        allocations.claim(ctxt, 'c1', 'p', 'u',
                          {first: {'VCPU': 1}, second: {'VCPU': 1}},
                          expected_generations=dict(
                              gens, **{second: gens[second] - 1}))
    assert allocations.get_for_consumer(ctxt, 'c1') == {}
    assert {uuid: _generation(ctxt, uuid) for uuid in gens} == gens
    claimed = allocations.claim(ctxt, 'c1', 'p', 'u',
                                {first: {'VCPU': 1}, second: {'VCPU': 2}},
                                expected_generations=gens)
    assert claimed == {uuid: gen + 1 for uuid, gen in gens.items()}
    assert allocations.get_for_consumer(ctxt, 'c1') == {
        first: {'VCPU': 1}, second: {'VCPU': 2}}


def test_a_consumer_claims_again_after_its_allocations_moved(ctxt):
    """The consumer row is written once, whichever claim comes first."""
    first, second = _provider(ctxt, 'n1'), _provider(ctxt, 'n2')
    allocations.claim(ctxt, 'c1', 'p', 'u', {first: {'VCPU': 1}},
                      expected_generations={first: _generation(ctxt,
                                                               first)})
    allocations.replace(ctxt, 'c1', 'p', 'u', {second: {'VCPU': 1}})
    allocations.claim(ctxt, 'c1', 'p', 'u', {first: {'VCPU': 2}},
                      expected_generations={first: _generation(ctxt,
                                                               first)})
    assert allocations.get_for_consumer(ctxt, 'c1') == {
        first: {'VCPU': 2}, second: {'VCPU': 1}}


def test_remove_releases_and_bumps_generation(ctxt):
    uuid = _provider(ctxt)
    allocations.claim(ctxt, 'c1', 'p', 'u', {uuid: {'VCPU': 3}})
    gen = _generation(ctxt, uuid)
    assert allocations.remove(ctxt, 'c1') == {uuid}
    assert _generation(ctxt, uuid) == gen + 1
    assert summaries.get_summaries(ctxt, [uuid])[uuid].usages['VCPU'] == 0
    assert allocations.remove(ctxt, 'c1') == set()


def test_replace_moves_a_consumer_atomically(ctxt):
    first = _provider(ctxt, 'n1')
    second = _provider(ctxt, 'n2', vcpus=1)
    allocations.claim(ctxt, 'c1', 'p', 'u', {first: {'VCPU': 1}})
    allocations.claim(ctxt, 'c2', 'p', 'u', {second: {'VCPU': 1}})
    # second is full: the move fails and c1 keeps its first allocation.
    with pytest.raises(exception.InsufficientCapacity):
        allocations.replace(ctxt, 'c1', 'p', 'u', {second: {'VCPU': 1}})
    assert allocations.get_for_consumer(ctxt, 'c1') == {first: {'VCPU': 1}}
    allocations.remove(ctxt, 'c2')
    released, claimed = allocations.replace(ctxt, 'c1', 'p', 'u',
                                            {second: {'VCPU': 1}})
    assert released == {first} and set(claimed) == {second}
    assert allocations.get_for_consumer(ctxt, 'c1') == {second: {'VCPU': 1}}


def test_summaries_read_everything(ctxt):
    uuid = _provider(ctxt)
    providers.set_traits(ctxt, uuid, {'HW_CPU_X86_SSE2'})
    allocations.claim(ctxt, 'c1', 'p', 'u', {uuid: {'MEMORY_MB': 100}})
    summary = summaries.get_summaries(ctxt)[uuid]
    assert summary.inventories['MEMORY_MB'].reserved == 512
    assert summary.usages['MEMORY_MB'] == 100
    assert summary.traits == {'HW_CPU_X86_SSE2'}


def test_concurrent_compare_and_swap_claims_never_overcommit(database, ctxt):
    """Many threads claim one small provider with the generation they read:
    exactly its capacity succeeds, the rest see a conflict or no room."""
    if database.backend == 'sqlite':
        pytest.skip('SQLite serialises writers; the race needs a server')
    uuid = _provider(ctxt, vcpus=5)
    start = threading.Barrier(10)

    def attempt(index):
        start.wait()
        for _ in range(50):
            summary = summaries.get_summaries(
                nl_context.get_admin_context(), [uuid])[uuid]
            if summary.usages['VCPU'] + 1 > 5:
                return False
            try:
                allocations.claim(nl_context.get_admin_context(),
                                  'c%d' % index, 'p', 'u',
                                  {uuid: {'VCPU': 1}},
                                  expected_generations={
                                      uuid: summary.generation})
                return True
            except exception.ClaimConflict:
                continue
        return False

    with concurrent.futures.ThreadPoolExecutor(10) as pool:
        results = list(pool.map(attempt, range(10)))
    assert sum(results) == 5
    final = summaries.get_summaries(ctxt, [uuid])[uuid]
    assert final.usages['VCPU'] == 5


# A scheduler's claim on one provider: one statement on PostgreSQL.

def _statements_during(work):
    """(what ``work()`` returned, the SQL statements it ran)."""
    engine = db_api.get_engine()
    seen = []

    def count(conn, cursor, statement, *args):
        seen.append(statement)
    sa_event.listen(engine, 'before_cursor_execute', count)
    try:
        return work(), seen
    finally:
        sa_event.remove(engine, 'before_cursor_execute', count)


def test_a_claim_on_one_provider_is_one_statement_on_postgresql(
        ctxt, database):
    uuid = _provider(ctxt)
    gen = _generation(ctxt, uuid)
    claimed, seen = _statements_during(lambda: allocations.claim(
        ctxt, 'c1', 'p', 'u', {uuid: {'VCPU': 2, 'MEMORY_MB': 256}},
        expected_generations={uuid: gen}))
    assert claimed == {uuid: gen + 1}
    if database.backend == 'postgresql':
        assert len(seen) == 1, seen
    assert allocations.get_for_consumer(ctxt, 'c1') == {
        uuid: {'VCPU': 2, 'MEMORY_MB': 256}}
    assert _generation(ctxt, uuid) == gen + 1
    usages = summaries.get_summaries(ctxt, [uuid])[uuid].usages
    assert (usages['VCPU'], usages['MEMORY_MB']) == (2, 256)


def test_a_failed_claim_on_one_provider_writes_nothing(ctxt, database):
    uuid = _provider(ctxt)
    gen = _generation(ctxt, uuid)
    with pytest.raises(exception.ClaimConflict):
        allocations.claim(ctxt, 'c1', 'p', 'u', {uuid: {'VCPU': 1}},
                          expected_generations={uuid: gen + 1})
    unknown = uuidutils.generate_uuid()
    with pytest.raises(exception.ResourceProviderNotFound):
        allocations.claim(ctxt, 'c1', 'p', 'u', {unknown: {'VCPU': 1}},
                          expected_generations={unknown: 0})
    assert allocations.get_for_consumer(ctxt, 'c1') == {}
    assert _generation(ctxt, uuid) == gen
    assert not _consumer_rows(database, 'c1')
    # The consumer is written once, by its first successful claim.
    for _ in range(2):
        allocations.claim(ctxt, 'c1', 'p', 'u', {uuid: {'VCPU': 1}},
                          expected_generations={
                              uuid: _generation(ctxt, uuid)})
    assert _consumer_rows(database, 'c1') == [('c1', 'p', 'u')]
    assert summaries.get_summaries(ctxt, [uuid])[uuid].usages['VCPU'] == 2


def _consumer_rows(database, uuid):
    engine = sa.create_engine(database.url)
    try:
        with engine.connect() as conn:
            table = models.Consumer.__table__
            return [tuple(row) for row in conn.execute(
                sa.select(table.c.uuid, table.c.project_id,
                          table.c.user_id).where(table.c.uuid == uuid))]
    finally:
        engine.dispose()
