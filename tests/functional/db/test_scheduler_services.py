"""The scheduler's narrow service re-read, on every backend: only the
services not plainly up and enabled, and those asked for."""

import datetime

from oslo_utils import timeutils
import pytest

from nova_lite import context as nl_context
from nova_lite import objects
from nova_lite.scheduler import host_manager
from nova_lite.scheduler import host_services

COMPUTE = host_manager.COMPUTE_BINARY


@pytest.fixture
def ctxt(database):
    return nl_context.get_admin_context()


def _service(ctxt, host, **changes):
    service = objects.Service(ctxt, host=host, binary=COMPUTE,
                              topic='compute')
    service.create()
    service.heartbeat()
    for name, value in changes.items():
        setattr(service, name, value)
    if changes:
        service.save()
    return service


def test_services_to_recheck(ctxt):
    for host in ('up1', 'up2', 'asked'):
        _service(ctxt, host)
    _service(ctxt, 'disabled', disabled=True)
    _service(ctxt, 'forced', forced_down=True)
    silent = _service(ctxt, 'silent')
    objects.Service(ctxt, host='other', binary='nova-lite-conductor',
                    topic='conductor', disabled=True).create()
    now = timeutils.utcnow().replace(tzinfo=None)
    later = now + datetime.timedelta(seconds=30)
    found = host_services.services_to_recheck(ctxt, COMPUTE, now, 20,
                                              {'asked'})
    assert sorted(s.host for s in found) == ['asked', 'disabled', 'forced']
    # Thirty seconds on, every heartbeat is older than 20 s.
    found = host_services.services_to_recheck(ctxt, COMPUTE, later, 20,
                                              set())
    assert sorted(s.host for s in found) == [
        'asked', 'disabled', 'forced', 'silent', 'up1', 'up2']
    assert not silent.up_at(later, 20)
    loader = host_manager.DatabaseLoader()
    assert [s.host for s in loader.services_to_recheck(
        ctxt, now, 20, {'up1'})] == ['up1', 'disabled', 'forced']
