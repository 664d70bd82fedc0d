"""The scheduler's narrow service re-read, on every backend: only the
services not plainly up and enabled, and those asked for; and the compute
node rows its start-up load reads."""

import datetime

from oslo_utils import timeutils
import pytest

from nova_lite import context as nl_context
from nova_lite import objects
from nova_lite.scheduler import host_manager
from nova_lite.scheduler import host_rows
from nova_lite.scheduler import host_services
from nova_lite.scheduler import host_state

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


def test_compute_node_rows_hold_the_objects_values(ctxt):
    # The start-up load's rows (host_rows) against ComputeNode objects.
    for index, extra in enumerate([
            {}, {'stats': {'failed_builds': '2', 'gpu': None},
                 'metrics': {'cpu.percent': 5.0}, 'host_ip': '10.0.0.1',
                 'numa_topology': [{'id': 0, 'cpus': [0, 1]}],
                 'pci_device_pools': [{'count': 2}], 'running_vms': 3}]):
        node = objects.ComputeNode(
            ctxt, uuid='00000000-0000-4000-8000-00000000000%d' % index,
            host='h%d' % index, hypervisor_hostname='n%d' % index, vcpus=8,
            memory_mb=4096, local_gb=100, hypervisor_type='qemu',
            hypervisor_version=7001, cpu_info='{"arch": "x86_64"}',
            **extra)
        node.create()
    # An update time too.
    node.running_vms = 4
    node.save()
    nodes = host_manager.DatabaseLoader().compute_nodes(ctxt)
    rows = host_manager.DatabaseLoader().compute_node_rows(ctxt)
    assert len(rows) == len(nodes) == 2
    for node, row in zip(nodes, rows, strict=True):
        for name in host_rows.NODE_ROW_FIELDS:
            assert getattr(row, name) == getattr(node, name), name
    assert rows[1].updated_at.utcoffset() is not None
    assert host_rows.get_rows(ctxt, {nodes[1].uuid}) == [rows[1]]
    assert host_rows.get_rows(ctxt, set()) == []


def test_service_rows_hold_the_objects_records(ctxt):
    _service(ctxt, 'up')
    _service(ctxt, 'disabled', disabled=True, disabled_reason='why')
    _service(ctxt, 'forced', forced_down=True)
    objects.Service(ctxt, host='never', binary=COMPUTE,
                    topic='compute').create()
    objects.Service(ctxt, host='other', binary='nova-lite-conductor',
                    topic='conductor').create()
    loader = host_manager.DatabaseLoader()
    services = loader.services(ctxt)
    rows = loader.service_rows(ctxt)
    assert [record for record, _created in rows] == [
        host_state.ServiceRecord.of(service) for service in services]
    assert [created for _record, created in rows] == [
        service.created_at for service in services]
    now = timeutils.utcnow().replace(tzinfo=None)
    assert (host_services.entries_of_rows(rows, now)
            == host_services.entries(services, now))
    assert not host_services.entries_of_rows(rows, now)['forced'][1]
