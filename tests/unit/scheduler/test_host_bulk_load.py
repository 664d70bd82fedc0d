"""The start-up load's bulk path (compute nodes read as rows, no
ComputeNode object per node) makes the same host states, and so the same
decisions, as the path through versioned objects."""

import datetime
import json
import random
from unittest import mock

import pytest

from nova_lite import exception
from nova_lite.scheduler import filter_scheduler
from nova_lite.scheduler import filters
from nova_lite.scheduler import host_manager
from nova_lite.scheduler import host_rows
from nova_lite.scheduler import host_state
from nova_lite.scheduler import request_filter
from nova_lite.scheduler import weighers

from . import fakes
from . import random_fleet

# Slots compared as they are; the aggregates by uuid (each manager has
# views of its own) and the change hook (the population's) left out.
_COMPARED = [name for name in host_state.HostState.__slots__
             if name not in ('_on_change', '__dict__', 'aggregates')]


class _Loader(fakes.FakeLoader):
    """Lists the nodes first (so the load reads batches) and, with
    ``rows``, gives them as the database's columns would."""

    def __init__(self, records, rows):
        nodes, services, summaries, aggregates, instances = records
        super().__init__(nodes, services, summaries, aggregates, instances)
        if rows:
            self.compute_node_rows = self._rows
            self.service_rows = self._service_rows

    def digest(self, ctxt):
        return {node.uuid: (None, 1) for node in self.nodes}

    def services_of_hosts(self, ctxt, hosts):
        self.calls.append(('services_of_hosts', sorted(hosts)))
        return [service for service in self.services_
                if service.host in hosts]

    def _rows(self, ctxt, uuids=None):
        self.calls.append(('compute_node_rows', sorted(uuids)))
        return [host_rows.row_of(_columns(node)) for node in self.nodes
                if uuids is None or node.uuid in uuids]


    def _service_rows(self, ctxt, hosts=None):
        self.calls.append(('service_rows', hosts and sorted(hosts)))
        return [host_rows.service_of(_service_columns(service))
                for service in self.services_
                if hosts is None or service.host in hosts]


def _service_columns(service):
    """A Service's database columns (times naive)."""
    values = []
    for name in host_rows._SERVICE_COLUMNS:
        value = (getattr(service, name) if service.obj_attr_is_set(name)
                 else None)
        if name in ('last_seen_up', 'updated_at', 'created_at') and value:
            value = value.replace(tzinfo=None)
        values.append(value)
    return values


def _columns(node):
    """A ComputeNode's database columns (JSON as text, times naive)."""
    values = []
    for name in host_rows.NODE_ROW_FIELDS:
        value = (getattr(node, name) if node.obj_attr_is_set(name)
                 else None)
        if name in ('stats', 'metrics', 'pci_device_pools',
                    'numa_topology'):
            value = None if value is None else json.dumps(value)
        elif name == 'updated_at' and value is not None:
            value = value.replace(tzinfo=None)
        values.append(value)
    return values


def _records(seed):
    """(nodes, services, summaries, aggregates, instances) of a random
    fleet (random_fleet's, with stats of numbers and update times)."""
    rng = random.Random(seed)
    made = []
    original = host_state.HostState.from_records.__func__

    def capture(cls, node, service, summary, *args, **kwargs):
        made.append((node, service, summary))
        return original(cls, node, service, summary, *args, **kwargs)

    with mock.patch.object(host_state.HostState, 'from_records',
                           classmethod(capture)):
        states, aggregates = random_fleet.fleet(rng)
    nodes, services, summaries, instances = [], {}, {}, {}
    for state, (node, service, summary) in zip(states, made, strict=True):
        if rng.random() < 0.5:
            node.updated_at = datetime.datetime(2026, 11, 29, 3, 30,
                                                rng.randint(0, 59))
        if rng.random() < 0.2:
            node.stats = dict(node.stats, num_instances=rng.randint(0, 5))
        nodes.append(node)
        if service is not None and service.host not in services:
            _vary(rng, service)
            services[service.host] = service
        summaries[node.uuid] = summary
        if state._instances_known:
            instances[node.uuid] = list(state.instances.values())
    return (nodes, list(services.values()), summaries, aggregates,
            instances)


def _vary(rng, service):
    """Forced down, or never reported (up while recently created)."""
    if rng.random() < 0.1:
        service.forced_down = True
    elif rng.random() < 0.2:
        created = service.last_seen_up
        service.last_seen_up = None
        service.created_at = created if rng.random() < 0.8 else None


def _manager(records, rows):
    loader = _Loader(records, rows)
    manager = host_manager.HostManager(loader=loader)
    manager.load_all(None)
    return manager, loader


def _fields(state):
    fields = {name: getattr(state, name, None) for name in _COMPARED}
    fields['aggregates'] = [agg.uuid for agg in state.aggregates]
    if state._packed:
        # The flavor of an instance a decision claimed for is its
        # request's: equal, not the same object, in each manager.
        uuids, profiles = state._packed
        fields['_packed'] = (uuids, [
            profile[:3] + (_primitive(profile[3]),) + profile[4:]
            for profile in profiles])
    return fields


def _primitive(flavor):
    return None if flavor is None else flavor.obj_to_primitive()


def _decide(manager, seed):
    rng = random.Random(seed)
    states = list(manager.population)
    spec, uuids = random_fleet.request(rng, states)
    scheduler = filter_scheduler.FilterScheduler(
        filters.HostFilterHandler().load_enabled_filters(),
        [cls() for cls in weighers.all_weighers()],
        rng=random.Random(seed))
    try:
        result = scheduler.select_destinations(
            spec, manager.population, uuids, fakes.FakeClaimer(),
            prefilters=request_filter.process_reqspec(
                spec, manager.aggregates()))
        return [[(s.service_host, s.nodename) for s in selections]
                for selections in result]
    except exception.NovaLiteException as exc:
        return type(exc).__name__, exc.format_message()


@pytest.mark.parametrize('batch', [0, 3])
def test_rows_make_the_same_host_states_and_decisions(conf, batch):
    conf.config(group='scheduler', host_state_load_batch=batch)
    conf.config(group='pci', alias=[random_fleet.PCI_ALIAS])
    outcomes, ups = set(), set()
    for seed in range(60):
        records = _records(seed)
        objects_path, _loader = _manager(records, rows=False)
        rows_path, loader = _manager(records, rows=True)
        assert [s.uuid for s in rows_path.population] == [
            s.uuid for s in objects_path.population], seed
        for mine, theirs in zip(rows_path.population,
                                objects_path.population, strict=True):
            assert _fields(mine) == _fields(theirs), seed
        assert (rows_path.population.nbytes
                == objects_path.population.nbytes)
        read_rows = any(call == 'compute_node_rows'
                        for call, _uuids in loader.calls)
        # Rows are read only in batches; a load at once reads objects.
        assert read_rows == bool(batch and records[0])
        assert ('service_rows', None) in loader.calls
        ups.update((s.service_up, s.service_state()[0])
                   for s in rows_path.population)
        outcome = _decide(rows_path, seed)
        assert outcome == _decide(objects_path, seed), seed
        outcomes.add(type(outcome).__name__)
    assert outcomes == {'list', 'tuple'}
    # Up, down, and without a service.
    assert ups == {(True, True), (False, True), (False, False)}


def test_row_of_gives_the_objects_values():
    when = datetime.datetime(2026, 11, 29, 3, 30)
    row = host_rows.row_of((
        'u', 'h', 'n', 'qemu', '7001', '{}', None, when,
        '{"failed_builds": 2, "gpu": null}', '{"cpu.percent": 5.0}', None,
        '[{"id": 0}]', None))
    assert row.stats == {'failed_builds': '2', 'gpu': None}
    assert row.metrics == {'cpu.percent': 5.0}
    assert row.numa_topology == [{'id': 0}]
    assert row.hypervisor_version == 7001 and row.running_vms == 0
    assert row.updated_at == when.replace(tzinfo=datetime.UTC)
    assert row.updated_at.utcoffset() == datetime.timedelta(0)


def _change(rng, records):
    """Change a few nodes, providers and services as writers would;
    the uuids of the nodes whose notices follow."""
    nodes, services, summaries, _aggregates, instances = records
    changed = rng.sample(nodes, min(len(nodes), 3))
    for node in changed:
        node.stats = dict(node.stats, failed_builds=str(rng.randint(0, 4)))
        summary = summaries[node.uuid]
        summary.generation += 1
        for rc in list(summary.usages):
            summary.usages[rc] += rng.randint(0, 2)
        instances[node.uuid] = instances.get(node.uuid, [])[1:]
    for service in services:
        if rng.random() < 0.2:
            service.disabled = not service.disabled
    return [node.uuid for node in changed]


def test_notices_read_as_rows_update_the_states_alike(conf):
    conf.config(group='scheduler', host_state_load_batch=3)
    conf.config(group='pci', alias=[random_fleet.PCI_ALIAS])
    for seed in range(40):
        records = _records(seed)
        objects_path, _loader = _manager(records, rows=False)
        rows_path, loader = _manager(records, rows=True)
        rng = random.Random(seed)
        for _round in range(2):
            changed = _change(rng, records)
            for manager in (objects_path, rows_path):
                manager.mark_dirty(changed)
                manager.apply_notices(None)
            for mine, theirs in zip(rows_path.population,
                                    objects_path.population, strict=True):
                assert _fields(mine) == _fields(theirs), seed
            assert _decide(rows_path, seed) == _decide(objects_path, seed)
        if records[0]:
            assert ('compute_node_rows', sorted(changed)) in loader.calls
