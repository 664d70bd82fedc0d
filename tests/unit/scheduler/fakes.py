"""Builders of scheduler inputs for unit tests: no database, no bus."""

import datetime
import itertools

from oslo_utils import timeutils
from oslo_utils import uuidutils

from nova_lite import exception
from nova_lite import objects
from nova_lite.placement import providers
from nova_lite.placement import summaries
from nova_lite.scheduler import claims
from nova_lite.scheduler import host_state

_COUNTER = itertools.count(1)


def inventory(total, reserved=0, ratio=1.0, min_unit=1, max_unit=None,
              step_size=1):
    return providers.Inventory(total=total, reserved=reserved,
                               min_unit=min_unit,
                               max_unit=total if max_unit is None else
                               max_unit,
                               step_size=step_size, allocation_ratio=ratio)


def summary(uuid, name='node', generation=1, vcpus=8, memory_mb=16384,
            disk_gb=100, used=None, inventories=None, traits=(),
            aggregates=()):
    """A ProviderSummary with VCPU/MEMORY_MB/DISK_GB inventories (those
    given as None are left out) or exactly ``inventories``."""
    result = summaries.ProviderSummary(uuid, name, generation)
    if inventories is None:
        inventories = {}
        for rc, total in (('VCPU', vcpus), ('MEMORY_MB', memory_mb),
                          ('DISK_GB', disk_gb)):
            if total is not None:
                inventories[rc] = inventory(total)
    result.inventories.update(inventories)
    result.usages.update(used or {})
    result.traits.update(traits)
    result.aggregates.update(aggregates)
    return result


def compute_node(uuid, host, nodename=None, stats=None, **kwargs):
    values = dict(uuid=uuid, host=host,
                  hypervisor_hostname=nodename or host, vcpus=8,
                  memory_mb=16384, local_gb=100, hypervisor_type='fake',
                  hypervisor_version=1000, cpu_info='{}',
                  stats=stats or {}, running_vms=0)
    values.update(kwargs)
    return objects.ComputeNode(**values)


def service(host, up=True, disabled=False, disabled_reason=None):
    """A compute Service whose heartbeat is recent (up) or an hour old."""
    seen = timeutils.utcnow().replace(tzinfo=None)
    if not up:
        seen -= datetime.timedelta(hours=1)
    return objects.Service(id=next(_COUNTER), host=host,
                           binary='nova-lite-compute', disabled=disabled,
                           disabled_reason=disabled_reason,
                           forced_down=False, last_seen_up=seen)


def host(name='host1', vcpus=8, memory_mb=16384, disk_gb=100, used=None,
         up=True, disabled=False, cpu_ratio=1.0, ram_ratio=1.0,
         disk_ratio=1.0, reserved=None, generation=1, uuid=None,
         stats=None):
    """A HostState as the host manager would build it."""
    uuid = uuid or uuidutils.generate_uuid()
    reserved = reserved or {}
    inventories = {}
    for rc, total, ratio in (('VCPU', vcpus, cpu_ratio),
                             ('MEMORY_MB', memory_mb, ram_ratio),
                             ('DISK_GB', disk_gb, disk_ratio)):
        if total is not None:
            inventories[rc] = inventory(total, reserved.get(rc, 0), ratio)
    node = compute_node(uuid, name, stats=stats)
    svc = service(name, up=up, disabled=disabled)
    return host_state.HostState.from_records(
        node, svc, summary(uuid, name, generation, used=used,
                           inventories=inventories))


def spec(vcpus=1, memory_mb=512, root_gb=1, ephemeral_gb=0, swap=0,
         **kwargs):
    flavor = objects.Flavor(flavorid='f1', name='f1', vcpus=vcpus,
                            memory_mb=memory_mb, root_gb=root_gb,
                            ephemeral_gb=ephemeral_gb, swap=swap,
                            extra_specs={})
    values = dict(project_id='project', user_id='user', flavor=flavor,
                  num_instances=1, scheduler_hints={})
    values.update(kwargs)
    return objects.RequestSpec(**values)


class FakeClaimer(claims.Claimer):
    """Claims in memory; ``conflicts`` holds provider uuids whose next
    claim raises ClaimConflict (once each)."""

    def __init__(self, conflicts=()):
        self.conflicts = set(conflicts)
        self.claims = []
        self.released = []

    def claim(self, host_state, consumer_uuid, spec_obj, resources):
        if host_state.uuid in self.conflicts:
            self.conflicts.discard(host_state.uuid)
            raise exception.ClaimConflict(uuid=host_state.uuid,
                                          generation=host_state.generation)
        self.claims.append((consumer_uuid, host_state.host, dict(resources)))
        return host_state.generation + 1

    def release(self, consumer_uuid):
        self.released.append(consumer_uuid)


class FakeLoader:
    """The host manager's loader over in-memory records.

    ``aggregates_`` are Aggregate objects (or anything with uuid, name,
    hosts, metadata); ``instances_`` is {node uuid: [HostInstance]}.
    """

    def __init__(self, nodes=(), services=(), provider_summaries=None,
                 aggregates=(), instances=None):
        self.nodes = list(nodes)
        self.services_ = list(services)
        self.summaries_ = dict(provider_summaries or {})
        self.aggregates_ = list(aggregates)
        self.instances_ = dict(instances or {})
        self.calls = []

    def compute_nodes(self, ctxt, uuids=None):
        self.calls.append(('compute_nodes', None if uuids is None
                           else sorted(uuids)))
        return [n for n in self.nodes if uuids is None or n.uuid in uuids]

    def services(self, ctxt):
        self.calls.append(('services', None))
        return list(self.services_)

    def summaries(self, ctxt, uuids=None):
        self.calls.append(('summaries', None if uuids is None
                           else sorted(uuids)))
        return {u: s for u, s in self.summaries_.items()
                if uuids is None or u in uuids}

    def aggregates(self, ctxt, uuids=None):
        self.calls.append(('aggregates', None if uuids is None
                           else sorted(uuids)))
        return [a for a in self.aggregates_
                if uuids is None or a.uuid in uuids]

    def instances(self, ctxt, uuids=None):
        self.calls.append(('instances', None if uuids is None
                           else sorted(uuids)))
        return {u: list(i) for u, i in self.instances_.items()
                if uuids is None or u in uuids}
