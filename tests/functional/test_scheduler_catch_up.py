"""A scheduler that missed change notices converges, within a bounded
time, with the real daemons on RabbitMQ and PostgreSQL.

One one-node compute. A change is written to the placement tables the
way a writer whose notice was lost leaves it (the trait row and the
generation moved, no fanout sent): no request touches that host, so no
claim conflict refreshes it either. Only the scheduler's catch-up
(``[scheduler] host_state_resync_interval``, set to CATCH_UP seconds
here) can make the server that needs the trait schedulable; it must
within a few periods. The notices the writes themselves publish reach
the scheduler at once: a disable through the API keeps the next server
off the host, an enable lets the one after it on.
"""

import time

import pytest
import sqlalchemy as sa

from tests.functional import conftest
from tests.functional import deployment

CATCH_UP = 5
# The catch-up runs every CATCH_UP seconds: allow three periods on a
# busy machine (and the periodic loop's own start-up delay).
BOUND = 3 * CATCH_UP + 5
NODE = {'node_count': 1, 'vcpus': 8, 'memory_mb': 8192, 'local_gb': 100}


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    with conftest.deployed(
            module_tmp, request, computes={'c1': NODE},
            conf={'scheduler': {'host_state_resync_interval': CATCH_UP},
                  'filter_scheduler': {
                      'enabled_filters': 'ComputeFilter'}}) as d:
        d.image_id = d.register_image()
        conftest.add_flavors(d, {name: {'ram': 512, 'vcpus': 1, 'disk': 1}
                                 for name in ('tiny', 'needs-y')})
        _write(d, "INSERT INTO flavor_extra_specs (flavor_id, key, value) "
                  "SELECT id, 'trait:CUSTOM_Y', 'required' FROM flavors "
                  "WHERE flavorid = 'needs-y'")
        yield d


def _write(deploy, statement, **params):
    engine = sa.create_engine(deploy.database.url)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(statement), params)
    finally:
        engine.dispose()


def _boot(deploy, flavor):
    status, _, answer = deploy.api.post('/servers', {'server': {
        'name': 'cu', 'imageRef': deploy.image_id, 'flavorRef': flavor}})
    assert status == 202, answer
    return answer['server']['id']


def _settled(deploy, uuid):
    """ACTIVE or ERROR, with the server's record."""
    def settled():
        server = deploy.admin_api.get('/servers/%s' % uuid)[2]['server']
        return server['status'] in ('ACTIVE', 'ERROR') and server

    return deployment.wait_for(settled, timeout=90,
                               message='%s settled' % uuid)


def _lose_a_trait_notice(deploy, trait):
    """Add ``trait`` to c1's provider and move its generation, as a
    placement write does, but tell no scheduler."""
    [node] = deploy.sql("SELECT uuid FROM compute_nodes WHERE host = 'c1'")
    _write(deploy, 'INSERT INTO traits (name) VALUES (:trait)', trait=trait)
    _write(deploy,
           'INSERT INTO resource_provider_traits (resource_provider_id, '
           'trait_id) SELECT r.id, t.id FROM resource_providers r, traits t '
           'WHERE r.uuid = :uuid AND t.name = :trait', uuid=node.uuid,
           trait=trait)
    _write(deploy, 'UPDATE resource_providers SET generation = '
                   'generation + 1 WHERE uuid = :uuid', uuid=node.uuid)
    return node.uuid


def test_a_lost_notice_is_caught_up_within_the_bound(deploy):
    # The scheduler knows the host as it is: nothing needs CUSTOM_Y yet.
    assert _settled(deploy, _boot(deploy, 'tiny'))['status'] == 'ACTIVE'
    # Let the notices of that build be applied, so none of them re-reads
    # the host after the write below by chance.
    time.sleep(CATCH_UP)
    written = time.monotonic()
    node = _lose_a_trait_notice(deploy, 'CUSTOM_Y')
    assert 'CUSTOM_Y' in {row.name for row in deploy.sql(
        'SELECT t.name FROM traits t JOIN resource_provider_traits rt ON '
        'rt.trait_id = t.id JOIN resource_providers r ON r.id = '
        'rt.resource_provider_id WHERE r.uuid = :uuid', uuid=node)}
    refused = []

    def scheduled():
        # A refused boot claims nothing, so it refreshes nothing either.
        server = _settled(deploy, _boot(deploy, 'needs-y'))
        if server['status'] == 'ACTIVE':
            return server
        assert 'CUSTOM_Y' in server['fault']['message'], server
        refused.append(time.monotonic() - written)
        deploy.admin_api.delete('/servers/%s' % server['id'])
        return None

    deployment.wait_for(scheduled, timeout=BOUND, interval=1,
                        message='a server needing CUSTOM_Y scheduled')
    print('converged %.1f s after the lost write (%d refused before)' % (
        time.monotonic() - written, len(refused)))


def test_notices_from_the_writes_arrive_at_once(deploy):
    def put(action):
        status, _, body = deploy.admin_api.put(
            '/os-services/%s' % action,
            {'host': 'c1', 'binary': 'nova-compute'})
        assert status == 200, body

    put('disable')
    # No wait: the service write (and its trait write) told the scheduler
    # when they committed, before the API answered.
    server = _settled(deploy, _boot(deploy, 'tiny'))
    assert server['status'] == 'ERROR'
    assert 'No valid host' in server['fault']['message']
    put('enable')
    assert _settled(deploy, _boot(deploy, 'tiny'))['status'] == 'ACTIVE'
