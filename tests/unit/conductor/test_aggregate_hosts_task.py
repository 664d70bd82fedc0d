"""Aggregate host changes: the task mirroring them into placement.

The remotable object methods computes and the API call stay (the wire
entries); their bodies hand the work to a task of ``conductor.tasks``.
The database steps are faked here and their order recorded; the
functional tests (tests/functional/db) run them on real databases.
"""

import types

import pytest

from nova_lite.conductor.tasks import aggregate_hosts
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects

NODE = '2c5f39cb-3fb2-12e3-994f-1127dddb0538'


@pytest.fixture
def ctxt():
    return nl_context.RequestContext(user_id='u1', project_id='p1')


# Aggregate.add_host / delete_host


@pytest.mark.parametrize('method,db_step', [
    ('add_host', '_add_host_in_db'), ('delete_host', '_delete_host_in_db')])
def test_aggregate_host_changes_return_the_providers_moved(
        ctxt, monkeypatch, method, db_step):
    row = types.SimpleNamespace()
    seen = []
    monkeypatch.setattr(aggregate_hosts, db_step,
                        lambda c, agg_id, host: seen.append((agg_id, host))
                        or (row, [NODE]))
    monkeypatch.setattr(objects.Aggregate, '_from_db_object',
                        staticmethod(lambda c, agg, r: seen.append(r)))
    aggregate = objects.Aggregate(ctxt, id=3, name='a')
    assert getattr(aggregate, method)('h1') == [NODE]
    assert seen == [(3, 'h1'), row]


def test_mirror_skips_nodes_without_a_provider(monkeypatch):
    monkeypatch.setattr(aggregate_hosts, '_node_uuids',
                        lambda session, host: ['n1', 'n2', 'n3'])
    calls = []

    def set_aggregates(session, uuid, wanted, owned):
        calls.append((uuid, wanted, owned))
        if uuid == 'n2':
            raise exception.ResourceProviderNotFound(name_or_uuid=uuid)
        return uuid == 'n1'

    monkeypatch.setattr(aggregate_hosts.providers,
                        'set_aggregates_in_session', set_aggregates)
    assert aggregate_hosts._mirror('s', 'h1', 'agg', present=True) == ['n1']
    assert calls[0] == ('n1', {'agg'}, {'agg'})
    aggregate_hosts._mirror('s', 'h1', 'agg', present=False)
    assert calls[-1] == ('n3', set(), {'agg'})
