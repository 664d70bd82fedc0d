"""Service.save: the task that syncs COMPUTE_STATUS_DISABLED.

The remotable object methods computes and the API call stay (the wire
entries); their bodies hand the work to a task of ``conductor.tasks``.
The database steps are faked here and their order recorded; the
functional tests (tests/functional/db) run them on real databases.
"""


import pytest

from nova_lite.conductor.tasks import service_disabled
from nova_lite import context as nl_context
from nova_lite import objects

NODE = '2c5f39cb-3fb2-12e3-994f-1127dddb0538'


@pytest.fixture
def ctxt():
    return nl_context.RequestContext(user_id='u1', project_id='p1')


# Service.save


@pytest.mark.parametrize('binary,changes,synced', [
    ('nova-lite-compute', {'disabled': True}, True),
    ('nova-lite-compute', {'disabled_reason': 'x'}, False),
    ('nova-lite-scheduler', {'disabled': True}, False),
])
def test_service_save_syncs_the_trait_of_a_compute_disabled(
        ctxt, monkeypatch, binary, changes, synced):
    service = objects.Service(ctxt, id=1, host='h1', binary=binary)
    service.obj_reset_changes()
    for name, value in changes.items():
        setattr(service, name, value)
    writes, syncs = [], []
    monkeypatch.setattr(
        objects.Service, '_save_in_db',
        staticmethod(lambda c, sid, values: writes.append(values) or 'row'))
    monkeypatch.setattr(objects.Service, '_from_db_object',
                        staticmethod(lambda c, svc, row: svc))
    monkeypatch.setattr(service_disabled, 'sync_disabled_trait',
                        lambda c, host: syncs.append(host) or [NODE])
    service.save()
    assert set(writes[0]) == set(changes) | {'updated_at'}
    assert syncs == (['h1'] if synced else [])
