"""Regression: two computes reporting a new trait at the same moment.

On a fresh deployment every compute's first report carries the same
capability traits, which no row holds yet. Two conductor threads each
looked the trait up, found nothing and inserted it; the second insert hit
the unique name (DBDuplicateEntry), the report failed, and that compute's
node stayed unschedulable until its next periodic report (a minute). The
writer is now retried, and the retry finds the row the other one made.
"""

import threading

from oslo_utils import uuidutils
import pytest

from nova_lite import context as nl_context
from nova_lite.placement import providers
from tests import db_fixtures

TRAIT = 'CUSTOM_REPORTED_BY_BOTH'


@pytest.fixture(params=['postgresql', 'mysql'])
def database(request):
    # Not SQLite: its writers queue behind one lock, so they cannot race.
    db = db_fixtures.MigratedDatabase(request.param).setup()
    yield db
    db.cleanup()


def _provider(ctxt, name):
    uuid = uuidutils.generate_uuid()
    providers.ensure_provider(ctxt, uuid, name)
    return uuid


def test_concurrent_first_reports_of_one_new_trait(database, monkeypatch):
    ctxt = nl_context.get_admin_context()
    uuids = [_provider(ctxt, 'node%d' % i) for i in range(2)]
    both_looked = threading.Barrier(2, timeout=20)
    calls = threading.local()
    validate = providers.validate_trait

    def validate_then_meet(name):
        # set_traits validates each name first; the second call in a
        # thread comes from _trait_ids after its SELECT found no row.
        # Holding both threads there makes both insert the trait.
        calls.count = getattr(calls, 'count', 0) + 1
        if calls.count == 2:
            both_looked.wait()
        return validate(name)

    monkeypatch.setattr(providers, 'validate_trait', validate_then_meet)
    errors = []

    def report(uuid):
        try:
            providers.set_traits(nl_context.get_admin_context(), uuid,
                                 {TRAIT})
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=report, args=(u,)) for u in uuids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert not both_looked.broken
    for uuid in uuids:
        assert providers.get_traits(ctxt, uuid) == {TRAIT}
