#!/usr/bin/env python3
"""Scheduler benchmark: decisions per second on fleets of fake hosts.

Builds fleets of fake compute nodes (varied capacity and usage, host
aggregates with metadata mirrored into placement aggregates, traits,
instances, some services down or disabled) and runs the real
SchedulerManager, HostManager and FilterScheduler on them in this
process, with an in-memory loader and claimer: no database, no bus, so
what is measured is the decision (host states current, prefilters,
placement step, filters, weighers, claim, selections). Reports, per
fleet size and filter set:

* scheduling decisions per second (one request per decision, of
  ``--instances-per-request`` instances, 1 by default),
* p50, p99 and max latency of one decision,
* CPU time per decision (the whole process, so the periodic service
  sync, which runs in a thread beside the decisions as the scheduler
  service runs it, is counted too): steadier than the rate on a shared
  machine; with ``--churn``, the churn thread's own share of it (making
  the changed records, sending the notices) is shown apart, and the
  decisions' own ("own": the deciding thread's alone),
* resident memory per host (RSS growth from loading the host states,
  columns included, divided by the hosts; "columns": the arrays alone),
  and the time to load them, wall and CPU, leaving out the making of
  the records the loader reads (a database's work here).

``--churn SHARE`` changes that share of the hosts per second (0.01: 1 %)
from a thread of its own while the decisions run: an instance built or
deleted by someone else, then the change notice placement's write hook
sends (``update_provider_states``); the next decision re-reads those
hosts before it takes the lock, as the service does.
``--changes-per-decision K`` instead changes K hosts and sends their
notice before each decision, in the deciding thread: with no thread
competing for the GIL, the decisions' own CPU is the steadiest figure
on a loaded machine (K=10 at 1,000 decisions/s is 1 % of 1,000,000
hosts per second; K=1, of 100,000).

Filter sets: ``default`` is Nova's default enabled_filters and every
weigher, with plain requests; ``heavy`` enables every filter and sends
requests with extra specs, image properties, zones, hints, server groups,
PCI and NUMA requests. Each set gets its own copy of the fleet.
``--runs`` repeats each measurement and the medians are reported (this
machine is shared and noisy); ``--reference`` evaluates host by host,
the per-host plug-in path, for comparison. Examples:

    tools/bench_scheduler.py --hosts 1000 10000 100000 --runs 3
    tools/bench_scheduler.py --hosts 1000 10000 --decisions 20 --runs 1 \
        --reference
    tools/bench_scheduler.py --hosts 10000 --sets default \
        --instances-per-request 10
    tools/bench_scheduler.py --hosts 100000 --sets default --churn 0.01
    tools/bench_scheduler.py --hosts 100000 --sets default \
        --changes-per-decision 1
"""

import argparse
import array
import cProfile
import functools
import gc
import os
import pstats
import random
import statistics
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import json  # noqa: E402
import types  # noqa: E402
import uuid as uuid_mod  # noqa: E402

from oslo_utils import timeutils  # noqa: E402

from nova_lite.conf import CONF  # noqa: E402
from nova_lite import objects  # noqa: E402
from nova_lite.placement import providers  # noqa: E402
from nova_lite.placement import summaries  # noqa: E402
from nova_lite.scheduler import claims  # noqa: E402
from nova_lite.scheduler import filter_scheduler  # noqa: E402
from nova_lite.scheduler import filters  # noqa: E402
from nova_lite.scheduler import host_manager  # noqa: E402
from nova_lite.scheduler import host_rows  # noqa: E402
from nova_lite.scheduler import host_state  # noqa: E402
from nova_lite.scheduler import manager  # noqa: E402

# The decisions' profiler (--profile), or None.
PROFILE = None
DEFAULT_FILTERS = ['ComputeFilter', 'ComputeCapabilitiesFilter',
                   'ImagePropertiesFilter', 'ServerGroupAntiAffinityFilter',
                   'ServerGroupAffinityFilter']

TRAITS = ['HW_CPU_X86_AVX2', 'HW_CPU_X86_AVX512F', 'CUSTOM_SSD',
          'CUSTOM_FPGA', 'COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_IMAGE_TYPE_RAW']
PCI_ALIAS = json.dumps({'name': 'qat', 'vendor_id': '8086',
                        'product_id': '0443', 'device_type': 'type-PCI'})
HEAVY_OPTIONS = {
    ('metrics', 'weight_setting'): ['cpu.percent=-1.0'],
    ('pci', 'alias'): [PCI_ALIAS],
    ('filter_scheduler', 'isolated_hosts'): ['cmp000007', 'cmp000011'],
    ('filter_scheduler', 'isolated_images'): [
        '11111111-2222-4333-8444-555555555555'],
}
# (name, vcpus, memory_mb, root_gb)
FLAVORS = [('m1.tiny', 1, 512, 1), ('m1.small', 1, 2048, 20),
           ('m1.medium', 2, 4096, 40), ('m1.large', 4, 8192, 80),
           ('m1.xlarge', 8, 16384, 160)]


def _uuid(rng):
    return str(uuid_mod.UUID(int=rng.getrandbits(128), version=4))


def _flavor(name, vcpus, memory_mb, root_gb, extra_specs=None):
    return objects.Flavor(flavorid=name, name=name, vcpus=vcpus,
                          memory_mb=memory_mb, root_gb=root_gb,
                          ephemeral_gb=0, swap=0,
                          extra_specs=dict(extra_specs or {}))


def _aggregates(rng):
    """Zones (every host in one), and aggregates with the metadata the
    aggregate filters and weighers read, with the share of hosts in
    each."""
    specs = [('az%d' % i, {'availability_zone': 'az%d' % i}, None)
             for i in range(1, 5)]
    specs += [('ssd', {'ssd': 'true'}, 0.2),
              ('gpu', {'filter_tenant_id': 'tenant-gpu'}, 0.05),
              ('dense', {'ram_allocation_ratio': '1.5',
                         'cpu_weight_multiplier': '2.0'}, 0.2),
              ('busy', {'max_io_ops_per_host': '4',
                        'max_instances_per_host': '40'}, 0.1),
              ('small', {'instance_type': 'm1.tiny,m1.small'}, 0.05)]
    return [(types.SimpleNamespace(id=i + 1, uuid=_uuid(rng), name=name,
                                   metadata=meta, hosts=[]), share)
            for i, (name, meta, share) in enumerate(specs)]


def _summary(uuid, name, sizes, instances):
    """The ProviderSummary of a node of ``sizes`` (vcpus, memory, disk)
    running ``instances`` (their flavors)."""
    summary = summaries.ProviderSummary(uuid, name, 1)
    for rc, total, ratio, reserved in zip(
            ('VCPU', 'MEMORY_MB', 'DISK_GB'), sizes, (4.0, 1.0, 1.0),
            (0, 2048, 0), strict=True):
        summary.inventories[rc] = providers.Inventory(
            total=total, reserved=reserved, min_unit=1,
            max_unit=total, step_size=1, allocation_ratio=ratio)
    summary.usages.update(
        VCPU=sum(f.vcpus for f in instances),
        MEMORY_MB=sum(f.memory_mb for f in instances),
        DISK_GB=sum(f.root_gb for f in instances))
    return summary


class Loader:
    """The host manager's loader over a fleet of ``count`` nodes, one
    compute service each, made as a database would deliver them.

    Like a database, it keeps its rows out of the host states' way: it
    holds only each node's uuid (16 bytes), its service flags and the
    aggregates' members, and makes fresh records (ComputeNode or its
    row, Service or its row, ProviderSummary, HostInstances; the host
    manager reads the rows when it can) at each read, each host from its
    own seed so every read returns the same fleet. ``generating`` counts the
    CPU seconds spent making records (``generating_wall`` the wall
    time), which a database would spend instead and the load time
    leaves out.
    """

    def __init__(self, count, rng):
        self.count = count
        self.seed = rng.getrandbits(64)
        self.generating = self.generating_wall = 0.0
        self._aggregates = _aggregates(rng)
        self._members = [array.array('l') for _agg in self._aggregates]
        # Per host: bit 0 disabled, bit 1 forced down.
        self._flags = bytearray(count)
        self._uuids = bytearray()
        self._index = {}
        self._batch = {}
        self._changed = {}
        self._unsettled = None
        self.flavors = [_flavor(*f) for f in FLAVORS]
        self.now = timeutils.utcnow().replace(tzinfo=None)
        for index in range(count):
            rng = self._rng(index)
            raw = uuid_mod.UUID(int=rng.getrandbits(128), version=4).bytes
            self._uuids += raw
            self._index[raw] = index
            for members, mine in zip(self._members,
                                     self._membership(index, rng),
                                     strict=True):
                if mine:
                    members.append(index)
            self._flags[index] = ((rng.random() < 0.01)
                                  | (rng.random() < 0.02) << 1)

    def _rng(self, index):
        return random.Random(self.seed ^ (index * 0x9E3779B97F4A7C15))

    def _membership(self, index, rng):
        return [(share is None and agg.name == 'az%d' % (1 + index % 4))
                or (share is not None and rng.random() < share)
                for agg, share in self._aggregates]

    def _uuid(self, index):
        return str(uuid_mod.UUID(bytes=bytes(
            self._uuids[16 * index:16 * index + 16])))

    def _records(self, index):
        """(node, summary, instances) of host ``index``, made afresh."""
        rng = self._rng(index)
        rng.getrandbits(128)
        mine = [agg for (agg, _share), member in zip(
            self._aggregates, self._membership(index, rng), strict=True)
            if member]
        rng.random()
        rng.random()
        node, summary, instances = _host_records(
            index, self._uuid(index), rng, mine, self.flavors)
        if self._flags[index] & 1:
            # As the compute's trait sync keeps it.
            summary.traits.add('COMPUTE_STATUS_DISABLED')
        return node, summary, instances

    def _service(self, index):
        flags = self._flags[index]
        return objects.Service(
            id=index + 1, host='cmp%06d' % index,
            binary=host_manager.COMPUTE_BINARY, disabled=bool(flags & 1),
            disabled_reason=None, forced_down=bool(flags & 2),
            last_seen_up=self.now)

    def _indexes(self, uuids):
        if uuids is None:
            return range(self.count)
        return sorted(self._index[uuid_mod.UUID(u).bytes] for u in uuids
                      if uuid_mod.UUID(u).bytes in self._index)

    def _read(self, uuids, part, make=None):
        """Part ``part`` of the records of ``uuids``: made once for the
        three reads of a batch (nodes, summaries, instances); ``make``
        turns each into what the read returns."""
        cpu, start = time.process_time(), time.perf_counter()
        wanted = self._indexes(uuids)
        # The churn thread replaces the batch (never changes it): a
        # batch read here is read whole.
        batch = self._batch
        if any(index not in batch for index in wanted):
            batch = self._batch = {index: self._current(index)
                                   for index in wanted}
        found = [batch[index][part] for index in wanted]
        if make is not None:
            found = list(map(make, found))
        self.generating += time.process_time() - cpu
        self.generating_wall += time.perf_counter() - start
        return found

    def forget_batch(self):
        """Drop the records of the last batch read (kept for its three
        reads)."""
        self._batch = {}

    def digest(self, ctxt):
        cpu, start = time.process_time(), time.perf_counter()
        found = {self._uuid(index): (None, 1) for index in range(self.count)}
        self.generating += time.process_time() - cpu
        self.generating_wall += time.perf_counter() - start
        return found

    def node_uuids(self):
        """Every node's uuid (what the churn picks from)."""
        return [self._uuid(index) for index in range(self.count)]

    def change(self, uuid, rng):
        """Someone else builds an instance on the node ``uuid``, or
        deletes one of its instances: kept as the database's new rows,
        which the next read of the node returns."""
        index = self._index[uuid_mod.UUID(uuid).bytes]
        node, old, instances = self._current(index)
        summary = summaries.ProviderSummary(uuid, old.name,
                                            old.generation + 1)
        summary.inventories.update(old.inventories)
        summary.usages.update(old.usages)
        summary.traits.update(old.traits)
        summary.aggregates.update(old.aggregates)
        instances = list(instances)
        if instances and rng.random() < 0.5:
            flavor, sign = instances.pop(rng.randrange(len(instances))), -1
            flavor = flavor.flavor
        else:
            flavor, sign = rng.choice(self.flavors), 1
            instances.append(host_state.HostInstance(
                _uuid(rng), 'p%d' % rng.randint(0, 50), 'active', None,
                flavor, {}, frozenset()))
        for rc, amount in (('VCPU', flavor.vcpus),
                           ('MEMORY_MB', flavor.memory_mb),
                           ('DISK_GB', flavor.root_gb)):
            summary.usages[rc] = max(0, summary.usages[rc] + sign * amount)
        # Kept whole, the node too (the same as made afresh): a read of a
        # changed node returns the rows a database would, without making
        # its records again from its random numbers (see _current).
        self._changed[index] = (node, summary, instances)
        if index in self._batch:
            self._batch = {}

    def _current(self, index):
        changed = self._changed.get(index)
        if changed is not None:
            return changed
        return self._records(index)

    def compute_nodes(self, ctxt, uuids=None):
        return self._read(uuids, 0, _node_object)

    def compute_node_rows(self, ctxt, uuids=None):
        # As the database's columns give them (see host_rows).
        return self._read(uuids, 0, _node_row)

    def services(self, ctxt):
        # A generator: the host manager keeps a small record of each.
        for index in range(self.count):
            cpu, start = time.process_time(), time.perf_counter()
            service = self._service(index)
            self.generating += time.process_time() - cpu
            self.generating_wall += time.perf_counter() - start
            yield service

    def service_rows(self, ctxt, hosts=None):
        # As the database's columns give them (see host_rows).
        indexes = (range(self.count) if hosts is None else
                   [int(host[3:]) for host in sorted(hosts)
                    if host.startswith('cmp') and int(host[3:]) < self.count])
        for index in indexes:
            cpu, start = time.process_time(), time.perf_counter()
            flags = self._flags[index]
            row = host_rows.service_of((
                index + 1, None, 'cmp%06d' % index,
                host_manager.COMPUTE_BINARY, flags & 1, None, flags & 2, 0,
                self.now, None, None))
            self.generating += time.process_time() - cpu
            self.generating_wall += time.perf_counter() - start
            yield row

    def services_to_recheck(self, ctxt, now, down_time, hosts):
        # What the database answers from its indexes (the services here
        # never change and heartbeats never age): the disabled and forced
        # down ones, and those asked for.
        if self._unsettled is None:
            self._unsettled = {index for index, flags
                               in enumerate(self._flags) if flags}
        unsettled = self._unsettled
        asked = [int(host[3:]) for host in hosts if host.startswith('cmp')]
        return [self._service(index)
                for index in sorted(unsettled.union(asked))
                if index < self.count]

    def services_of_hosts(self, ctxt, hosts):
        return [self._service(int(host[3:])) for host in hosts
                if host.startswith('cmp') and int(host[3:]) < self.count]

    def summaries(self, ctxt, uuids=None):
        return {s.uuid: s for s in self._read(uuids, 1)}

    def aggregates(self, ctxt, uuids=None):
        return [types.SimpleNamespace(
            id=agg.id, uuid=agg.uuid, name=agg.name, metadata=agg.metadata,
            hosts=['cmp%06d' % index for index in members])
            for (agg, _share), members in zip(self._aggregates,
                                              self._members, strict=True)
            if uuids is None or agg.uuid in uuids]

    def instances(self, ctxt, uuids=None):
        found = {node['uuid']: instances for node, instances in zip(
            self._read(uuids, 0), self._read(uuids, 2), strict=True)}
        if uuids is not None:
            # The last read of a batch at load (nodes, summaries,
            # instances): its records are the caller's alone from now
            # on, as a database's would be.
            self.forget_batch()
        return found


def _node_object(values):
    return objects.ComputeNode(**values)


def _node_row(values):
    return host_rows.NodeRow(*map(values.get, host_rows.NODE_ROW_FIELDS))


def _host_records(index, uuid, rng, mine, flavors):
    """(ComputeNode's fields, ProviderSummary, [HostInstance]) of one
    host."""
    name = 'cmp%06d' % index
    vcpus = rng.choice([16, 32, 64, 96])
    memory = rng.choice([65536, 131072, 262144, 524288])
    disk = rng.choice([1000, 2000, 4000])
    instances = [rng.choice(flavors) for _ in range(rng.randint(0, 10))]
    node = dict(
        uuid=uuid, host=name, hypervisor_hostname=name, vcpus=vcpus,
        memory_mb=memory, local_gb=disk, hypervisor_type='fake',
        hypervisor_version=rng.choice([1000, 2000, 2001]),
        cpu_info='{"arch": "x86_64"}', host_ip='10.%d.%d.%d' % (
            index >> 16, (index >> 8) & 255, index & 255),
        stats={'failed_builds': '1'} if rng.random() < 0.01 else {},
        metrics={'cpu.percent': float(rng.randint(0, 100))},
        pci_device_pools=[{'vendor_id': '8086', 'product_id': '0443',
                           'dev_type': 'type-PCI', 'numa_node': 0,
                           'count': 4}] if index % 20 == 0 else None,
        numa_topology=[{'id': i, 'cpus': list(range(i * vcpus // 2,
                                                    (i + 1) * vcpus // 2)),
                        'memory_mb': memory // 2, 'pinned_cpus': [],
                        'cpu_usage': 0, 'memory_usage': 0}
                       for i in range(2)] if index % 10 == 0 else None)
    summary = _summary(uuid, name, (vcpus, memory, disk), instances)
    summary.traits.update(t for t in TRAITS if rng.random() < 0.3)
    summary.aggregates.update(agg.uuid for agg in mine)
    return node, summary, [host_state.HostInstance(
        _uuid(rng), 'p%d' % rng.randint(0, 50), 'active', None, flavor,
        {}, frozenset()) for flavor in instances]


def _image(properties=None, image_id=None, rng=None):
    return objects.ImageMeta.from_image(
        {'id': image_id or _uuid(rng), 'disk_format': 'qcow2',
         'properties': properties or {}})


def _heavy_variant(spec, rng, kind):
    """Make ``spec`` exercise the filters of the heavy set."""
    if kind == 'capabilities':
        spec.flavor.extra_specs = {'capabilities:hypervisor_type': 'fake',
                                   'capabilities:cpu_info:arch': 'x86_64'}
    elif kind == 'aggregate':
        spec.flavor.extra_specs = {
            'aggregate_instance_extra_specs:ssd': 'true'}
    elif kind == 'image':
        spec.image = _image({'hw_architecture': 'x86_64',
                             'img_hv_requested_version': '>= 2000'},
                            rng=rng)
    elif kind == 'zone':
        spec.availability_zone = rng.choice(['az1', 'az2', 'az3', 'az4'])
    elif kind == 'trait':
        spec.flavor.extra_specs = {'trait:CUSTOM_SSD': 'required'}
    elif kind == 'numa':
        spec.flavor = _flavor(*FLAVORS[3], extra_specs={
            'hw:numa_nodes': '2'})
    elif kind == 'pci':
        spec.flavor.extra_specs = {'pci_passthrough:alias': 'qat:1'}
    elif kind == 'tenant':
        spec.project_id = 'tenant-gpu'
    elif kind == 'group':
        spec.instance_group = objects.InstanceGroup(
            uuid=_uuid(rng), name='g', policy='anti-affinity', rules={},
            project_id=spec.project_id, user_id='u', members=[], hosts=[])
    elif kind == 'different_host':
        spec.scheduler_hints = {'different_host': [_uuid(rng)]}
    elif kind == 'query':
        spec.scheduler_hints = {'query': [json.dumps(
            ['>=', '$free_ram_mb', 4096])]}


HEAVY_KINDS = ['plain', 'plain', 'plain', 'capabilities', 'aggregate',
               'image', 'zone', 'trait', 'numa', 'pci', 'tenant', 'group',
               'different_host', 'query']


def requests(filter_set, count, rng, kinds=None, per_request=1):
    """[(RequestSpec, [instance uuids])]: ``per_request`` instances
    each, varied flavors; for the heavy set, varied requests
    (HEAVY_KINDS, or ``kinds`` in turn)."""
    result = []
    for index in range(count):
        name, vcpus, memory, root = rng.choice(FLAVORS)
        spec = objects.RequestSpec(
            project_id='p%d' % rng.randint(0, 50), user_id='u',
            flavor=_flavor(name, vcpus, memory, root),
            num_instances=per_request,
            scheduler_hints={}, image=_image(rng=rng))
        if filter_set == 'heavy':
            _heavy_variant(spec, rng, kinds[index % len(kinds)] if kinds
                           else rng.choice(HEAVY_KINDS))
        result.append((spec, [_uuid(rng) for _ in range(per_request)]))
    return result


def _rss_kb():
    with open('/proc/self/status') as status:
        for line in status:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return 0


class MemoryClaimer(claims.Claimer):
    """Claims that always succeed: the provider's next generation."""

    def claim(self, host_state, consumer_uuid, spec_obj, resources):
        return (host_state.generation or 0) + 1

    def release(self, consumer_uuid):
        return []


def _configure(filter_set):
    CONF.set_override('host_subset_size', 1, group='filter_scheduler')
    if filter_set == 'default':
        CONF.set_override('enabled_filters', DEFAULT_FILTERS,
                          group='filter_scheduler')
        for group, name in HEAVY_OPTIONS:
            CONF.clear_override(name, group=group)
        return
    names = sorted(cls.__name__ for cls in filters.all_filters())
    # Cheap, selective filters first, as an operator would order them.
    names.sort(key=lambda name: name not in DEFAULT_FILTERS)
    CONF.set_override('enabled_filters', names, group='filter_scheduler')
    for (group, name), value in HEAVY_OPTIONS.items():
        CONF.set_override(name, value, group=group)


def _scheduler(loader, whole_population=True):
    hosts = host_manager.HostManager(loader=loader)
    driver = filter_scheduler.FilterScheduler.from_config(
        rng=random.Random(1), whole_population=whole_population)
    claimer = MemoryClaimer()
    return manager.SchedulerManager(
        host='bench', host_manager=hosts, driver=driver,
        claimer_factory=lambda context: claimer)


class _PeriodicServices(threading.Thread):
    """The scheduler's periodic service sync, in a thread of its own as
    the service runs it, competing with the decisions for the CPU."""

    def __init__(self, sched):
        super().__init__(daemon=True)
        self.sched = sched
        self.stop = threading.Event()
        self.runs = 0

    def run(self):
        spacing = self.sched.host_manager.service_sync_seconds()
        while not self.stop.wait(spacing):
            self.sched.host_manager.sync_services(None)
            self.runs += 1


class _Churn(threading.Thread):
    """Changes ``share`` of the hosts per second, a tenth of a second's
    worth at a time (see the module docstring)."""

    TICK = 0.1

    def __init__(self, sched, loader, share, rng):
        super().__init__(daemon=True)
        self.sched, self.loader, self.rng = sched, loader, rng
        self.uuids = sorted(loader.node_uuids())
        self.per_tick = share * len(self.uuids) * self.TICK
        self.stop = threading.Event()
        self.changed = 0
        # This thread's own CPU seconds (the other writers' and the change
        # notices' share of the process's CPU), reported apart.
        self.cpu = 0.0

    def run(self):
        start = time.thread_time()
        try:
            self._run()
        finally:
            self.cpu = time.thread_time() - start

    def _run(self):
        due, owed = time.monotonic(), 0.0
        while not self.stop.wait(max(0.0, due - time.monotonic())):
            due += self.TICK
            owed += self.per_tick
            count = min(int(owed), len(self.uuids))
            owed -= count
            picked = self.rng.sample(self.uuids, count)
            for uuid in picked:
                self.loader.change(uuid, self.rng)
            self.sched.update_provider_states(None, picked)
            self.changed += count


def _decide(sched, specs, churn=None, profile=False, before=None):
    """(latencies (s) of one decision per spec, the wall time, the
    NoValidHosts, the decisions' own CPU seconds, the hosts changed per
    second, the churn thread's CPU seconds), with the periodic
    service sync running alongside (when the scheduler has one),
    ``churn`` (a _Churn) changing hosts, and ``before()`` (if given)
    called before each decision, in the deciding thread."""
    threads = []
    if hasattr(sched.host_manager, 'sync_services'):
        threads.append(_PeriodicServices(sched))
    if churn is not None:
        threads.append(churn)
    for thread in threads:
        thread.start()
    try:
        latencies, wall, failures, own = _decide_all(sched, specs, profile,
                                                     before)
    finally:
        for thread in threads:
            thread.stop.set()
            thread.join()
    if churn is None:
        return latencies, wall, failures, own, 0.0, 0.0
    return latencies, wall, failures, own, churn.changed / wall, churn.cpu


def _decide_all(sched, specs, profile=False, before=None):
    if profile and PROFILE is not None:
        PROFILE.enable()
        try:
            return _decide_each(sched, specs, before)
        finally:
            PROFILE.disable()
    return _decide_each(sched, specs, before)


def _decide_each(sched, specs, before=None):
    """(latencies, wall time, NoValidHosts, the decisions' own CPU
    seconds: this thread's, ``before()`` left out)."""
    latencies = []
    failures = 0
    own = 0.0
    start = time.perf_counter()
    for spec, uuids in specs:
        if before is not None:
            before()
        cpu = time.thread_time()
        begin = time.perf_counter()
        try:
            sched.select_destinations(None, spec, uuids)
        except Exception as exc:
            # NoValidHost, wrapped by the RPC layer's ExpectedException:
            # still a decision.
            if type(exc).__name__ != 'ExpectedException':
                raise
            failures += 1
        latencies.append(time.perf_counter() - begin)
        own += time.thread_time() - cpu
    return latencies, time.perf_counter() - start, failures, own


class _ChangesBetween:
    """``--changes-per-decision``: ``count`` hosts changed by someone else
    and their notice applied before each decision, in the deciding
    thread, so the decisions' own CPU (which then includes applying the
    notices, as the service does before it decides) is measured without
    a thread competing for the GIL."""

    def __init__(self, sched, loader, count, rng):
        self._sched = sched
        self._loader = loader
        self._count = count
        self._rng = rng
        self._uuids = loader.node_uuids()

    def __call__(self):
        picked = self._rng.sample(self._uuids, self._count)
        for uuid in picked:
            self._loader.change(uuid, self._rng)
        self._sched.update_provider_states(None, picked)


def _percentile(values, pct):
    ordered = sorted(values)
    index = min(len(ordered) - 1,
                int(round(pct / 100.0 * (len(ordered) - 1))))
    return ordered[index]


def measure(sched, filter_set, decisions, runs, rng, per_request=1,
            churn=None, before=None):
    """Per run: (decisions/s, p50, p99, max latency, NoValidHosts, CPU
    per decision, hosts changed per second, the churn thread's CPU per
    decision, counted in the CPU per decision, the decisions' own CPU
    per decision); a decision places ``per_request`` instances;
    ``churn``: a callable giving a new _Churn for each run, or None;
    ``before``: called before each decision (_ChangesBetween), or
    None."""
    rows = []
    for _run in range(runs):
        # Every kind of request once first: the columns a kind needs
        # are built on its first use, then kept current.
        _decide(sched, requests(filter_set, 2 * len(HEAVY_KINDS), rng,
                                kinds=HEAVY_KINDS))
        specs = requests(filter_set, decisions, rng,
                         per_request=per_request)
        gc.collect()
        cpu = time.process_time()
        latencies, wall, failures, own, changed, churn_cpu = _decide(
            sched, specs, churn() if churn else None, profile=True,
            before=before)
        cpu = time.process_time() - cpu
        rows.append((decisions / wall, _percentile(latencies, 50),
                     _percentile(latencies, 99), max(latencies), failures,
                     cpu / decisions, changed, churn_cpu / decisions,
                     own / decisions))
    return rows


def _load(count, args):
    """(scheduler, seconds of CPU and of wall time to load its host
    states, RSS growth/host, the loader).

    The growth is measured once the fleet's database is made (its few
    bytes per host are not the scheduler's; the records it makes at
    each read are), so it counts what the host states keep and what the
    load's reads left behind. The times leave out the making of the
    records, which a database would do.
    """
    rng = random.Random(count)
    loader = Loader(count, rng)
    sched = _scheduler(loader, not args.reference)
    gc.collect()
    before = _rss_kb()
    loader.generating = loader.generating_wall = 0.0
    cpu, start = time.process_time(), time.perf_counter()
    sched.host_manager.get_population(None)
    cpu = time.process_time() - cpu - loader.generating
    wall = time.perf_counter() - start - loader.generating_wall
    loader.forget_batch()
    gc.collect()
    return (sched, (cpu, wall), (_rss_kb() - before) * 1024.0 / count,
            loader)


def bench_fleet(count, args):
    """Each filter set on a fleet of its own (the same one, rebuilt), so
    that neither inherits the other's claims."""
    results = {}
    memory = None
    for filter_set in args.sets:
        sched, load_seconds, per_host, loader = _load(count, args)
        _configure(filter_set)
        sched.driver = filter_scheduler.FilterScheduler.from_config(
            rng=random.Random(1), whole_population=not args.reference)
        decisions = args.decisions or (1000 if count != 10000 else 3000)
        churn = None
        if args.churn:
            churn = functools.partial(_Churn, sched, loader, args.churn,
                                      random.Random(-count))
        before = None
        if args.changes_per_decision:
            before = _ChangesBetween(sched, loader,
                                     args.changes_per_decision,
                                     random.Random(-count))
        results[filter_set] = measure(sched, filter_set, decisions,
                                      args.runs, random.Random(count),
                                      args.instances_per_request, churn,
                                      before)
        if memory is None:
            memory = (load_seconds, per_host,
                      sched.host_manager.population.nbytes / count)
        del sched
        gc.collect()
    return memory, results


def _report(count, memory, results):
    (cpu, wall), per_host, columns = memory
    print('hosts=%d  load %.2f s (CPU %.2f s)  memory %.0f bytes/host '
          '(columns %.0f)  load average %.1f'
          % (count, wall, cpu, per_host, columns, os.getloadavg()[0]))
    for filter_set, rows in results.items():
        rate, p50, p99, top = (statistics.median(r[i] for r in rows)
                               for i in range(4))
        cpu = statistics.median(r[5] for r in rows)
        changed = statistics.median(r[6] for r in rows)
        churn_cpu = statistics.median(r[7] for r in rows)
        own = statistics.median(r[8] for r in rows)
        print('  %-8s %6.0f decisions/s  p50 %6.3f ms  p99 %6.3f ms  '
              'max %5.0f ms  cpu %.2f ms/decision (own %.2f)  (runs: %s; '
              '%d NoValidHost)%s' % (
                  filter_set, rate, p50 * 1000, p99 * 1000, top * 1000,
                  cpu * 1000, own * 1000,
                  ', '.join('%.0f' % r[0] for r in rows),
                  sum(r[4] for r in rows),
                  '  %.0f hosts changed/s (churn thread cpu %.2f '
                  'ms/decision)' % (changed, churn_cpu * 1000)
                  if changed else ''))
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--hosts', type=int, nargs='+',
                        default=[1000, 10000, 100000],
                        help='fleet sizes, up to 1000000; the host states '
                             'take about 2 KB per host, but 1,000,000 '
                             'hosts take minutes to build and several GB '
                             'at the peak: check free memory first')
    parser.add_argument('--instances-per-request', type=int, default=1,
                        help='instances per request (num_instances): a '
                             'decision places them all, so its latency '
                             'and CPU cover every instance of it')
    parser.add_argument('--sets', nargs='+', default=['default', 'heavy'],
                        choices=['default', 'heavy'])
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--decisions', type=int, default=0,
                        help='decisions per run (default: by fleet size)')
    parser.add_argument('--changes-per-decision', type=int, default=0,
                        metavar='K',
                        help='change K hosts and apply their notice before '
                             'each decision, in the deciding thread (no '
                             'churn thread competing for the GIL); the '
                             '"own" CPU per decision then counts the '
                             'notices\' re-reads but not the changes')
    parser.add_argument('--churn', type=float, default=0.0,
                        metavar='SHARE',
                        help='share of the hosts changed per second while '
                             'deciding (0.01: 1 %%), each change followed '
                             'by its change notice; 0 (default): none')
    parser.add_argument('--profile', metavar='FILE',
                        help='profile the decisions of the measured runs, '
                             'not the warm-up (cProfile, the deciding '
                             'thread only), print the top of the profile '
                             'and keep its pstats in FILE')
    parser.add_argument('--reference', action='store_true',
                        help='filter and weigh host by host (the '
                             'reference path) instead of whole-population')
    args = parser.parse_args()
    CONF([], project='nova_lite', default_config_files=[])
    objects.register_all()
    # Heartbeats do not move here: keep every "up" service up.
    CONF.set_override('service_down_time', 10**6)
    print('python %s, %d CPUs, %s, %d instance(s) per request, churn %g '
          'of the hosts/s, load average %.2f' % (
              sys.version.split()[0], os.cpu_count(),
              'reference (per host)' if args.reference
              else 'whole-population',
              args.instances_per_request, args.churn, os.getloadavg()[0]))
    global PROFILE
    for count in args.hosts:
        if args.profile:
            PROFILE = cProfile.Profile()
        memory, results = bench_fleet(count, args)
        _report(count, memory, results)
        if args.profile:
            _print_profile(args.profile)


def _print_profile(path):
    PROFILE.dump_stats(path)
    stats = pstats.Stats(path)
    stats.sort_stats('tottime').print_stats(25)
    stats.sort_stats('cumulative').print_stats(30)


if __name__ == '__main__':
    main()
