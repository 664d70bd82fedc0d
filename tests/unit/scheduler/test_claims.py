"""PlacementClaimer over a mocked placement.allocations."""

from unittest import mock

from oslo_db import exception as db_exc
import pytest

from nova_lite import exception
from nova_lite.scheduler import claims

from . import fakes


@mock.patch('nova_lite.placement.allocations.claim')
def test_claim_swaps_on_the_generation_the_decision_saw(claim):
    host = fakes.host('h1', generation=41)
    claim.return_value = {host.uuid: 42}
    claimer = claims.PlacementClaimer('ctxt')
    generation = claimer.claim(host, 'consumer', fakes.spec(),
                               {'VCPU': 2, 'MEMORY_MB': 512})
    assert generation == 42
    claim.assert_called_once_with(
        'ctxt', 'consumer', 'project', 'user',
        {host.uuid: {'VCPU': 2, 'MEMORY_MB': 512}},
        expected_generations={host.uuid: 41})


@mock.patch('nova_lite.placement.allocations.claim')
def test_conflict_propagates(claim):
    host = fakes.host('h1')
    claim.side_effect = exception.ClaimConflict(uuid=host.uuid, generation=1)
    with pytest.raises(exception.ClaimConflict):
        claims.PlacementClaimer('ctxt').claim(host, 'c', fakes.spec(), {})


@mock.patch('nova_lite.placement.allocations.claim')
def test_deleted_provider_is_a_conflict(claim):
    host = fakes.host('h1')
    claim.side_effect = exception.ResourceProviderNotFound(uuid=host.uuid)
    with pytest.raises(exception.ClaimConflict):
        claims.PlacementClaimer('ctxt').claim(host, 'c', fakes.spec(), {})


@mock.patch('nova_lite.placement.allocations.claim')
def test_a_deadlocked_claim_is_a_conflict(claim):
    """Seen in the fault suite on MariaDB: a claim's INSERT chosen as a
    deadlock victim failed the boot (500 "Remote error: DBDeadlock")
    instead of the scheduler trying again."""
    host = fakes.host('h1', generation=7)
    claim.side_effect = db_exc.DBDeadlock()
    with pytest.raises(exception.ClaimConflict) as err:
        claims.PlacementClaimer('ctxt').claim(host, 'c', fakes.spec(), {})
    assert host.uuid in err.value.format_message()


@mock.patch('nova_lite.placement.allocations.remove')
def test_release_removes_the_consumers_allocations(remove):
    remove.return_value = {'rp'}
    assert claims.PlacementClaimer('ctxt').release('consumer') == {'rp'}
    remove.assert_called_once_with('ctxt', 'consumer')
