"""HostState: the scheduler's in-memory view of one compute node.

A HostState is built from three records read together: the ComputeNode
(what the hypervisor is), its compute Service (is it up, is it enabled)
and the placement ProviderSummary of the node's resource provider
(inventories, usages, traits, aggregates and the generation every claim
is compared against). Attribute names are Nova's, so filters and weighers
written for Nova read the same fields.

Capacity attributes (``free_ram_mb``, ``vcpus_used``, ...) are derived from
placement's inventories and usages, not from the compute's own counters,
because placement is what claims are checked against.

The host manager adds what the other filters read: the host's aggregates
(Nova's, with metadata) and availability zone (``set_aggregates``) and the
live instances on the node (``set_instances``), from which the instance
and I/O counts and the usage of NUMA cells and PCI pools are worked out.

    state = HostState.from_records(compute_node, service, summary)
    if state.fits({'VCPU': 2, 'MEMORY_MB': 2048}):
        ...
    state.consume({'VCPU': 2, 'MEMORY_MB': 2048}, new_generation)
"""

import collections
import operator

from nova_lite import availability_zones
from nova_lite.objects import fields
from nova_lite.scheduler import host_compact
from nova_lite.scheduler import host_records
from nova_lite.scheduler import host_usage
from nova_lite.scheduler import population_resources

_MB_PER_GB = 1024

# Task states of I/O-heavy operations (Nova's list): an instance in one of
# them, or still building, counts in num_io_ops.
IO_TASK_STATES = fields.TaskState.IO_HEAVY
_BUILDING = 'building'


class HostInstance(collections.namedtuple(
        'HostInstance', 'uuid project_id vm_state task_state flavor '
                        'image_properties group_uuids')):
    """One live instance on a node, as filters and weighers read it.

    ``flavor`` is its Flavor (or None), ``image_properties`` a dict of
    its image's standard properties, ``group_uuids`` the set of server
    groups it belongs to.
    """

    __slots__ = ()

    @property
    def is_io_op(self):
        """Building, or in an I/O-heavy task (Nova's num_io_ops rule)."""
        return (self.vm_state == _BUILDING
                or self.task_state in IO_TASK_STATES)


# Re-exported: the records a host state keeps (see host_records).
AggregateView = host_records.AggregateView
ServiceView = host_records.ServiceView
ServiceRecord = host_records.ServiceRecord
_name = host_records.host_name
_fields = host_records.read_fields
_field = host_records.read_field
_metrics = host_records.metrics
_int_stat = host_records.int_stat

_NODE_FIELDS = ('hypervisor_type', 'hypervisor_version', 'cpu_info',
                'host_ip', 'updated_at', 'stats', 'metrics',
                'pci_device_pools', 'numa_topology', 'running_vms')


# The same fields of a NodeRow (host_rows), read at once.
_ROW_VALUES = operator.attrgetter(*_NODE_FIELDS)

# What a host without NUMA cells or PCI devices holds (shared).
_NO_DEVICES = ()
_NO_USAGES = ((), ())


def _fit_of(inventories):
    """{rc: (min_unit, max_unit, step_size, capacity)} of inventories
    (a shared mapping), shared by every host with the same ones."""
    return host_compact.derived('fit', (inventories,), lambda: (
        host_compact.shared_mapping(
            {rc: (inv.min_unit, inv.max_unit, inv.step_size,
                  int((inv.total - inv.reserved) * inv.allocation_ratio))
             for rc, inv in inventories.items()})))


def _derived_of(inventories, used_pair):
    """What shared inventories and usages (``_used``) give a host:
    ``_capacity_of``'s four values, then its resource columns' values
    (``population_resources.resource_values``), remembered together
    for every host of the same pair."""
    return host_compact.derived('capacity', (inventories, used_pair),
                                lambda: _capacity_of(inventories, used_pair))


def _capacity_of(inventories, used_pair):
    """(capacity row (see _CAPACITY), free_ram_mb, vcpus_used,
    free_disk_mb, resource values) of shared inventories and usages."""
    classes, amounts = used_pair
    used = dict(zip(classes, amounts, strict=True))
    # Shared: a fleet of a few sizes and flavors has few values.
    number = host_compact.shared_number
    capacity = list(_NO_CAPACITY)
    free_ram = vcpus_used = free_disk = 0
    mem = inventories.get('MEMORY_MB')
    if mem is not None:
        capacity[0:2] = mem.total, mem.allocation_ratio
        free_ram = number(mem.total - mem.reserved
                          - used.get('MEMORY_MB', 0))
    cpu = inventories.get('VCPU')
    if cpu is not None:
        capacity[2:4] = cpu.total, cpu.allocation_ratio
        vcpus_used = number(used.get('VCPU', 0) + cpu.reserved)
    disk = inventories.get('DISK_GB')
    if disk is not None:
        capacity[4:6] = disk.total, disk.allocation_ratio
        free_disk = number((disk.total - disk.reserved
                            - used.get('DISK_GB', 0)) * _MB_PER_GB)
    return (host_compact.shared_row(tuple(capacity)), free_ram, vcpus_used,
            free_disk, population_resources.resource_values(
                _fit_of(inventories), used))


# (total_usable_ram_mb, ram_allocation_ratio, vcpus_total,
# cpu_allocation_ratio, total_usable_disk_gb, disk_allocation_ratio):
# what the inventories give a host state, one shared tuple for every
# host of the same inventories rather than six slots each.
_NO_CAPACITY = (0, 1.0, 0, 1.0, 0, 1.0)


def _capacity_field(index):
    def get(self):
        return self._capacity[index]

    def set(self, value):
        values = list(self._capacity)
        values[index] = value
        self._capacity = host_compact.shared_row(tuple(values))

    return property(get, set, doc='Derived from the inventories.')


def _holds(uuids, raw):
    """Whether the packed ``uuids`` (16 bytes each) hold ``raw``."""
    found = uuids.find(raw)
    while found != -1:
        if not found % 16:
            return True
        found = uuids.find(raw, found + 1)
    return False


def _service_flags(service, up):
    """(disabled, up) of a compute service record (None: no service,
    so down); ``up`` None: the service's own ``is_up``."""
    if service is None:
        return False, False
    if up is None:
        up = _field(service, 'is_up', False)
    if type(service) is ServiceRecord:
        # What the host manager keeps (a million read at load).
        return bool(service.disabled), bool(up)
    disabled = (service.get('disabled') if isinstance(service, dict)
                else _field(service, 'disabled'))
    return bool(disabled), bool(up)


class HostState:
    """Mutable view of one compute node, kept current between requests.

    ``fits(resources)`` tells whether one instance's resources
    ({resource_class: amount}) can be allocated here as placement would
    check it; ``consume(resources, generation)`` applies a successful claim
    so the next decision sees it. Updates replace the fields from fresh
    records; an instance of this class is updated in place so references
    held by a request in progress stay valid.

    Every update through these methods calls ``_on_change(self, what)``
    when it is set (by the owning Population, so its columns follow;
    ``what`` is 'service' when only the service changed, else None).
    """

    # Slots, not a __dict__: a million of these are kept. ``__dict__``
    # stays available (made only when used) for attributes a plug-in
    # sets on a host state, as Nova's HostState allows.
    __slots__ = (
        'host', 'nodename', 'uuid', 'generation', 'inventories', '_used',
        'traits', 'provider_aggregates', 'aggregates', '_capacity',
        'free_ram_mb', 'vcpus_used', 'free_disk_mb',
        'num_instances', 'num_io_ops', 'hypervisor_type',
        'hypervisor_version', 'cpu_info', 'host_ip',
        'stats', 'updated', '_service_source', '_service_view',
        '_service_disabled', 'service_up', 'availability_zone', '_packed',
        'metrics', 'pci_stats', 'numa_topology', '_limits',
        'failed_builds', '_pci_pools', '_numa_cells', '_instances_known',
        '_fit', '_on_change', '__dict__')

    def __init__(self, host, nodename, uuid):
        self._on_change = None
        self.host = host
        self.nodename = nodename
        self.uuid = uuid
        self.generation = None
        self.inventories = host_compact.EMPTY_MAP
        # Usages: (shared tuple of resource classes, tuple of amounts).
        self._used = _NO_USAGES
        self.traits = frozenset()
        # Placement aggregate uuids of the provider; ``aggregates`` are
        # Nova's host aggregates (AggregateView).
        self.provider_aggregates = frozenset()
        self.aggregates = []

        # The totals and ratios (see _CAPACITY), shared.
        self._capacity = _NO_CAPACITY
        self.free_ram_mb = 0
        self.vcpus_used = 0
        self.free_disk_mb = 0

        self.num_instances = 0
        self.num_io_ops = 0
        self.hypervisor_type = None
        self.hypervisor_version = None
        self.cpu_info = None
        self.host_ip = None
        self.stats = host_compact.EMPTY_MAP
        self.updated = None

        # The service record, and its ServiceView made on first read.
        self._service_source = None
        self._service_view = None
        self._service_disabled = False
        self.service_up = False
        self.availability_zone = None
        # The live instances, packed (host_compact); ``instances`` gives
        # them as Nova's {uuid: instance}.
        self._packed = ()
        self.metrics = host_compact.EMPTY_MAP
        self.pci_stats = _NO_DEVICES
        self.numa_topology = _NO_DEVICES
        # Made on first use: filters may write into Nova's ``limits``.
        self._limits = None
        self.failed_builds = 0
        # As the compute reported them: free PCI pools and NUMA usage are
        # these minus what the instances on the node use.
        self._pci_pools = _NO_DEVICES
        self._numa_cells = _NO_DEVICES
        self._instances_known = False
        # {resource_class: (min_unit, max_unit, step_size, capacity)}:
        # what fits() needs, precomputed so the per-host check is a few
        # comparisons.
        self._fit = host_compact.EMPTY_MAP

    @property
    def usages(self):
        """{resource_class: amount used} (a Counter: 0 when unused),
        made at each read; assign it to change it."""
        classes, amounts = self._used
        return collections.Counter(dict(zip(classes, amounts, strict=True)))

    @usages.setter
    def usages(self, usages):
        usages = {rc: amount for rc, amount in usages.items() if amount}
        # Shared with every host of the same usage: a fleet of a few
        # flavors has far fewer usages than hosts.
        self._used = host_compact.shared_usage(
            tuple(usages), tuple(usages.values())) if usages else _NO_USAGES

    total_usable_ram_mb = _capacity_field(0)
    ram_allocation_ratio = _capacity_field(1)
    vcpus_total = _capacity_field(2)
    cpu_allocation_ratio = _capacity_field(3)
    total_usable_disk_gb = _capacity_field(4)
    disk_allocation_ratio = _capacity_field(5)

    @property
    def hypervisor_hostname(self):
        """Nova's name for ``nodename`` (the same value)."""
        return self.nodename

    @hypervisor_hostname.setter
    def hypervisor_hostname(self, value):
        self.nodename = value

    @property
    def limits(self):
        """Nova's per-host limits dict (empty unless a filter sets it)."""
        if self._limits is None:
            self._limits = {}
        return self._limits

    @limits.setter
    def limits(self, value):
        self._limits = value

    @property
    def instances(self):
        """{uuid: HostInstance} of the live instances on the node, made
        from their packed form at each read (treat it as read-only)."""
        return {inst.uuid: inst for inst in
                host_compact.unpack_instances(self._packed, HostInstance)}

    @instances.setter
    def instances(self, instances):
        self._packed = host_compact.pack_instances(
            instances.values() if isinstance(instances, dict)
            else instances)

    @classmethod
    def from_records(cls, compute_node, service, summary, service_up=None,
                     instances=None):
        """A HostState of ``compute_node`` with its service and provider
        (see ``update_service`` for ``service`` and ``service_up``) and,
        when given, the live ``instances`` (see ``set_instances``)."""
        # The host and node names are set by the update (read once).
        state = cls(None, None, compute_node.uuid)
        state.update(compute_node=compute_node, summary=summary,
                     instances=instances)
        state.update_service(service, service_up)
        return state

    @classmethod
    def from_row(cls, row, service, service_up, summary, instances,
                 aggregates=(), zone=None):
        """The HostState ``from_records`` and ``set_aggregates`` make of
        the same records, of a compute node's NodeRow (``host_rows``):
        the bulk load's path, every field set once, without a versioned
        object or the change hooks (a new state has none). ``zone``, when
        given, is the availability zone ``aggregates`` give."""
        state = cls.__new__(cls)
        state._on_change = state._limits = state._service_view = None
        state._service_source = service
        state._service_disabled, state.service_up = _service_flags(
            service, service_up)
        state.uuid = row.uuid
        state.host = host = _name(row.host)
        node = row.hypervisor_hostname
        # Most nodes are named as their host: the same interned string,
        # without a second look in the table of a million names.
        state.nodename = (host if type(node) is type(host) is str
                          and node == host else _name(node))
        state._set_node(_ROW_VALUES(row), True)
        state._set_summary_row(summary)
        state.aggregates = host_compact.shared_list(aggregates)
        state.availability_zone = (availability_zones.zone_of(
            state.aggregates) if zone is None else zone)
        if instances is None:
            state._packed = ()
            state._instances_known = False
            state._update_devices()
        else:
            state._packed = host_compact.pack_instances(instances)
            state._instances_known = True
            state._recount()
        return state

    def _set_node(self, values, counts):
        """Set what a compute node's ``values`` (of _NODE_FIELDS) give;
        ``counts``: its instance counts too (until the instances are
        known)."""
        (hv_type, hv_version, cpu_info, self.host_ip,
         self.updated, stats, metrics, pci_pools, numa_cells,
         running_vms) = values
        shared = host_compact.shared
        self.hypervisor_type = shared(hv_type)
        # A large int is an object per host unless shared.
        self.hypervisor_version = shared(hv_version)
        self.cpu_info = shared(cpu_info)
        stats = stats or {}
        self.stats = host_compact.shared_mapping(stats)
        self.failed_builds = _int_stat(stats, 'failed_builds')
        self.metrics = host_compact.shared_mapping(_metrics(metrics))
        # Shared with every node of the same hardware (read-only).
        self._pci_pools = host_compact.shared_json(
            [dict(p) for p in pci_pools or ()]) or _NO_DEVICES
        self._numa_cells = host_compact.shared_json(
            [dict(c) for c in numa_cells or ()]) or _NO_DEVICES
        if counts:
            if 'num_instances' in stats:
                self.num_instances = _int_stat(stats, 'num_instances')
            else:
                self.num_instances = running_vms or 0
            self.num_io_ops = _int_stat(stats, 'io_workload')

    def _set_summary_row(self, summary):
        self.generation = summary.generation
        self.inventories = host_compact.shared_mapping(summary.inventories)
        self._fit = _fit_of(self.inventories)
        self.usages = summary.usages
        self.traits = host_compact.shared(frozenset(summary.traits))
        self.provider_aggregates = host_compact.shared(
            frozenset(summary.aggregates))
        self._update_capacity()

    def update(self, compute_node=None, summary=None, instances=None):
        """Replace what ``compute_node``, ``summary`` and/or
        ``instances`` describe (the NUMA and PCI usage is worked out
        once, after all of them)."""
        if compute_node is not None:
            self.update_from_compute_node(compute_node, devices=False)
        if summary is not None:
            self.update_from_summary(summary, devices=False)
        if instances is not None:
            self.set_instances(instances)
        else:
            self._update_devices()
            self._changed()

    def update_from_compute_node(self, node, devices=True):
        """Replace what the compute node record (a ComputeNode, or a
        NodeRow of ``host_rows``) describes; ``devices`` False leaves the
        NUMA and PCI usage to the caller."""
        self.host = _name(node.host)
        self.nodename = _name(node.hypervisor_hostname)
        self._set_node(_ROW_VALUES(node) if isinstance(node, tuple)
                       else _fields(node, _NODE_FIELDS),
                       not self._instances_known)
        if devices:
            if self._instances_known:
                self._recount()
            else:
                self._update_devices()
        self._changed()

    def update_from_summary(self, summary, devices=True):
        """Replace what the provider summary describes; ``devices`` False
        leaves the NUMA and PCI usage to the caller."""
        self.generation = summary.generation
        # A change notice usually brings new usages alone: what the
        # inventories, traits and aggregates give is kept when equal.
        if summary.inventories != self.inventories:
            # Shared with every host of the same inventories (read-only).
            self.inventories = host_compact.shared_mapping(
                summary.inventories)
            self._fit = _fit_of(self.inventories)
        self.usages = summary.usages
        if self.traits != summary.traits:
            self.traits = host_compact.shared(frozenset(summary.traits))
        if self.provider_aggregates != summary.aggregates:
            self.provider_aggregates = host_compact.shared(
                frozenset(summary.aggregates))
        self._update_capacity()
        if self._numa_cells and devices:
            # Shared-CPU instances are placed by the allocation ratios.
            self._update_devices()
        self._changed()

    def _changed(self, what=None):
        hook = self._on_change
        if hook is not None:
            hook(self, what)

    def resource_limits(self):
        """{resource_class: (min_unit, max_unit, step_size, capacity)}
        of the provider's inventories (capacity: (total - reserved) *
        allocation_ratio, as placement computes it)."""
        return self._fit

    def set_aggregates(self, aggregates):
        """Record the host aggregates (AggregateView or alike) of this
        node's host, and the availability zone they give it."""
        # Shared by the hosts of the same aggregates (read-only).
        self.aggregates = host_compact.shared_list(aggregates)
        self.availability_zone = availability_zones.zone_of(
            self.aggregates)
        self._changed()

    def set_instances(self, instances):
        """Replace the live instances on this node (HostInstance records)
        and recount what depends on them."""
        self._packed = host_compact.pack_instances(instances)
        self._instances_known = True
        self._recount()
        self._changed()

    def add_instance(self, instance):
        """Count one more instance (a claim this scheduler just made)."""
        if self._append_new(instance):
            self.num_io_ops += instance.is_io_op
            if self._pci_pools or self._numa_cells:
                self._update_devices()
            self._changed()
            return
        instances = host_compact.unpack_instances(self._packed,
                                                  HostInstance)
        new = all(inst.uuid != instance.uuid for inst in instances)
        instances.append(instance)
        self._packed = host_compact.pack_instances(instances)
        # Without the instance list (counts from the compute's stats),
        # count up from what the compute said.
        self.num_instances = (len(instances) + new - 1
                              if self._instances_known
                              else self.num_instances + new)
        self.num_io_ops += instance.is_io_op and new
        if self._pci_pools or self._numa_cells:
            self._update_devices()
        self._changed()

    def apply_instance_states(self, states):
        """Apply instances' new states ({uuid: (vm_state, task_state)},
        from change notices) to those of them on this node, and recount
        what depends on them (num_io_ops). Returns whether any changed.
        Without the instance list (counts from the compute's stats), the
        I/O ops move by the changes of the instances this scheduler
        added."""
        if not self._packed:
            return False
        instances = host_compact.unpack_instances(self._packed,
                                                  HostInstance)
        io_ops, changed = 0, False
        for index, instance in enumerate(instances):
            new = states.get(instance.uuid)
            if new is None or (instance.vm_state,
                               instance.task_state) == tuple(new):
                continue
            now = instance._replace(vm_state=new[0], task_state=new[1])
            instances[index] = now
            io_ops += now.is_io_op - instance.is_io_op
            changed = True
        if not changed:
            return False
        self._packed = host_compact.pack_instances(instances)
        if self._instances_known:
            self._recount()
        else:
            self.num_io_ops = max(0, self.num_io_ops + io_ops)
        self._changed()
        return True

    def _append_new(self, instance):
        """Append ``instance`` to the packed instances and count it, when
        its uuid is new and every uuid is packed as bytes (without
        unpacking the others); False, changing nothing, otherwise."""
        one = host_compact.pack_instances([instance])
        packed = self._packed
        if not isinstance(one[0], bytes):
            return False
        if packed:
            uuids = packed[0]
            if not isinstance(uuids, bytes) or _holds(uuids, one[0]):
                return False
            self._packed = (uuids + one[0], packed[1] + one[1])
            count = len(packed[1])
        else:
            self._packed = one
            count = 0
        # Without the instance list (counts from the compute's stats),
        # count up from what the compute said.
        self.num_instances = (count + 1 if self._instances_known
                              else self.num_instances + 1)
        return True

    def _recount(self):
        profiles = host_compact.profiles(self._packed)
        self.num_instances = len(profiles)
        io_ops = 0
        for profile in profiles:
            # (project_id, vm_state, task_state, ...): HostInstance.is_io_op
            if profile[1] == _BUILDING or profile[2] in IO_TASK_STATES:
                io_ops += 1
        self.num_io_ops = io_ops
        self._update_devices()

    def _update_devices(self):
        if not self._numa_cells and not self._pci_pools:
            self.numa_topology = self.pci_stats = _NO_DEVICES
            return
        cells, pools = host_usage.node_usage(
            self._numa_cells, self._pci_pools,
            host_compact.unpack_instances(self._packed, HostInstance),
            self.cpu_allocation_ratio, self.ram_allocation_ratio)
        # Shared with every node of the same usage (read-only).
        self.numa_topology = host_compact.shared_json(cells)
        self.pci_stats = host_compact.shared_json(pools)

    @property
    def service(self):
        """The compute service (a ServiceView), or None.

        Made on first read: the host manager re-reads every service every
        few seconds, and most views are never looked at.
        """
        view = self._service_view
        if view is None and self._service_source is not None:
            view = self._service_view = ServiceView.from_service(
                self._service_source)
        return view

    @service.setter
    def service(self, service):
        self.update_service(service, self.service_up)

    def service_state(self):
        """(has a service, disabled, up), read without a ServiceView."""
        return (self._service_source is not None, self._service_disabled,
                bool(self.service_up))

    def update_service(self, service, up=None):
        """Record the compute service (None: no service row, so down).

        ``up`` overrides ``service.is_up`` (computed once per service by a
        caller updating many nodes of one host).
        """
        before = self.service_state()
        self._service_source = service
        self._service_view = None
        self._service_disabled, self.service_up = _service_flags(service,
                                                                 up)
        if self.service_state() != before:
            self._changed('service')

    def _update_capacity(self):
        """Derive Nova's capacity attributes from inventories and usages
        (once per distinct pair of them: both are shared)."""
        (self._capacity, self.free_ram_mb, self.vcpus_used,
         self.free_disk_mb, _values) = _derived_of(self.inventories,
                                                   self._used)

    def resource_shortfall(self, resources):
        """The first resource class of ``resources`` that cannot be
        allocated here, or None when all fit.

        A class fits when the provider has inventory of it, the amount
        respects min_unit, max_unit and step_size, and used + amount is
        within (total - reserved) * allocation_ratio.
        """
        fit = self._fit
        usages = self.usages
        for rc, amount in resources.items():
            limits = fit.get(rc)
            if limits is None:
                return rc
            min_unit, max_unit, step_size, capacity = limits
            if (amount < min_unit or amount > max_unit or amount % step_size
                    or usages[rc] + amount > capacity):
                return rc
        return None

    def resource_values(self):
        """What a population's resource columns hold of this host (see
        ``population_resources.resource_values``), read without making
        ``usages``; worked out with the capacity, once per distinct
        pair of inventories and usages (``_fit`` is what the inventories
        give)."""
        return _derived_of(self.inventories, self._used)[4]

    def fits(self, resources):
        """True when every class of ``resources`` can be allocated here."""
        return self.resource_shortfall(resources) is None

    def consume(self, resources, generation, instance=None):
        """Apply a claim of ``resources`` that moved the provider to
        ``generation``: the next decision sees the usage and the new
        generation its own compare-and-swap must match.

        ``instance`` (a HostInstance) is the instance claimed for: it
        joins ``instances``, so server group filters and the NUMA and PCI
        usage see it. Without it only the counts move.
        """
        used = self.usages
        for rc, amount in resources.items():
            used[rc] += amount
        self.usages = used
        self.generation = generation
        self._update_capacity()
        if instance is not None:
            self.add_instance(instance)
            return
        self.num_instances += 1
        # A build is an I/O-heavy operation until the compute reports
        # otherwise, as Nova counts it.
        self.num_io_ops += 1
        self._changed()

    def __repr__(self):
        return ('(%s, %s) ram: %sMB disk: %sMB io_ops: %s instances: %s'
                % (self.host, self.nodename, self.free_ram_mb,
                   self.free_disk_mb, self.num_io_ops, self.num_instances))
