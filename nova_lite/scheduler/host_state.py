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

    state = HostState.from_records(compute_node, service, summary)
    if state.fits({'VCPU': 2, 'MEMORY_MB': 2048}):
        ...
    state.consume({'VCPU': 2, 'MEMORY_MB': 2048}, new_generation)
"""

import collections

_MB_PER_GB = 1024


class ServiceView(dict):
    """The fields of a compute service that filters read.

    A plain dict snapshot, so Nova-style ``host_state.service['disabled']``
    works, with attribute access (``host_state.service.disabled``) too.
    """

    __slots__ = ()

    _FIELDS = ('id', 'uuid', 'host', 'binary', 'disabled', 'disabled_reason',
               'forced_down', 'version', 'last_seen_up', 'updated_at')

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    @classmethod
    def from_service(cls, service):
        """Snapshot a Service object (or anything with its attributes)."""
        if isinstance(service, dict):
            return cls(service)
        return cls((name, _field(service, name))
                   for name in cls._FIELDS)


def _field(obj, name, default=None):
    """``obj.name``, or ``default`` when unset (versioned objects raise)."""
    is_set = getattr(obj, 'obj_attr_is_set', None)
    if is_set is not None and name in getattr(obj, 'fields', ()):
        return getattr(obj, name) if is_set(name) else default
    return getattr(obj, name, default)


def _int_stat(stats, key):
    try:
        return int(stats.get(key) or 0)
    except (TypeError, ValueError):
        return 0


class HostState:
    """Mutable view of one compute node, kept current between requests.

    ``fits(resources)`` tells whether one instance's resources
    ({resource_class: amount}) can be allocated here as placement would
    check it; ``consume(resources, generation)`` applies a successful claim
    so the next decision sees it. Updates replace the fields from fresh
    records; an instance of this class is updated in place so references
    held by a request in progress stay valid.
    """

    def __init__(self, host, nodename, uuid):
        self.host = host
        self.nodename = nodename
        self.uuid = uuid
        self.generation = None
        self.inventories = {}
        self.usages = collections.Counter()
        self.traits = set()
        self.aggregates = set()

        self.total_usable_ram_mb = 0
        self.free_ram_mb = 0
        self.ram_allocation_ratio = 1.0
        self.vcpus_total = 0
        self.vcpus_used = 0
        self.cpu_allocation_ratio = 1.0
        self.total_usable_disk_gb = 0
        self.free_disk_mb = 0
        self.disk_allocation_ratio = 1.0

        self.num_instances = 0
        self.num_io_ops = 0
        self.hypervisor_type = None
        self.hypervisor_version = None
        self.hypervisor_hostname = nodename
        self.cpu_info = None
        self.host_ip = None
        self.stats = {}
        self.updated = None

        self.service = None
        self.service_up = False
        self.availability_zone = None
        self.instances = {}
        self.metrics = {}
        self.limits = {}
        self.failed_builds = 0
        # {resource_class: (min_unit, max_unit, step_size, capacity)}:
        # what fits() needs, precomputed so the per-host check is a few
        # comparisons.
        self._fit = {}

    @classmethod
    def from_records(cls, compute_node, service, summary, service_up=None):
        """A HostState of ``compute_node`` with its service and provider
        (see ``update_service`` for ``service`` and ``service_up``)."""
        state = cls(compute_node.host, compute_node.hypervisor_hostname,
                    compute_node.uuid)
        state.update(compute_node=compute_node, summary=summary)
        state.update_service(service, service_up)
        return state

    def update(self, compute_node=None, summary=None):
        """Replace what ``compute_node`` and/or ``summary`` describe."""
        if compute_node is not None:
            self.update_from_compute_node(compute_node)
        if summary is not None:
            self.update_from_summary(summary)

    def update_from_compute_node(self, node):
        self.host = node.host
        self.nodename = node.hypervisor_hostname
        self.hypervisor_hostname = node.hypervisor_hostname
        self.hypervisor_type = _field(node, 'hypervisor_type')
        self.hypervisor_version = _field(node, 'hypervisor_version')
        self.cpu_info = _field(node, 'cpu_info')
        self.host_ip = _field(node, 'host_ip')
        self.updated = _field(node, 'updated_at')
        stats = _field(node, 'stats') or {}
        self.stats = dict(stats)
        if 'num_instances' in stats:
            self.num_instances = _int_stat(stats, 'num_instances')
        else:
            self.num_instances = _field(node, 'running_vms', 0) or 0
        self.num_io_ops = _int_stat(stats, 'io_workload')

    def update_from_summary(self, summary):
        self.generation = summary.generation
        self.inventories = dict(summary.inventories)
        self.usages = collections.Counter(summary.usages)
        self.traits = summary.traits
        self.aggregates = summary.aggregates
        self._fit = {rc: (inv.min_unit, inv.max_unit, inv.step_size,
                          int((inv.total - inv.reserved)
                              * inv.allocation_ratio))
                     for rc, inv in self.inventories.items()}
        self._update_capacity()

    def update_service(self, service, up=None):
        """Record the compute service (None: no service row, so down).

        ``up`` overrides ``service.is_up`` (computed once per service by a
        caller updating many nodes of one host).
        """
        if service is None:
            self.service = None
            self.service_up = False
            return
        self.service = ServiceView.from_service(service)
        if up is None:
            up = bool(_field(service, 'is_up', False))
        self.service_up = up

    def _update_capacity(self):
        """Derive Nova's capacity attributes from inventories and usages."""
        used = self.usages
        mem = self.inventories.get('MEMORY_MB')
        if mem is None:
            self.total_usable_ram_mb = self.free_ram_mb = 0
            self.ram_allocation_ratio = 1.0
        else:
            self.total_usable_ram_mb = mem.total
            self.free_ram_mb = mem.total - mem.reserved - used['MEMORY_MB']
            self.ram_allocation_ratio = mem.allocation_ratio
        cpu = self.inventories.get('VCPU')
        if cpu is None:
            self.vcpus_total = self.vcpus_used = 0
            self.cpu_allocation_ratio = 1.0
        else:
            self.vcpus_total = cpu.total
            self.vcpus_used = used['VCPU'] + cpu.reserved
            self.cpu_allocation_ratio = cpu.allocation_ratio
        disk = self.inventories.get('DISK_GB')
        if disk is None:
            self.total_usable_disk_gb = self.free_disk_mb = 0
            self.disk_allocation_ratio = 1.0
        else:
            self.total_usable_disk_gb = disk.total
            self.free_disk_mb = (disk.total - disk.reserved
                                 - used['DISK_GB']) * _MB_PER_GB
            self.disk_allocation_ratio = disk.allocation_ratio

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

    def fits(self, resources):
        """True when every class of ``resources`` can be allocated here."""
        return self.resource_shortfall(resources) is None

    def consume(self, resources, generation):
        """Apply a claim of ``resources`` that moved the provider to
        ``generation``: the next decision sees the usage and the new
        generation its own compare-and-swap must match."""
        for rc, amount in resources.items():
            self.usages[rc] += amount
        self.generation = generation
        self.num_instances += 1
        # A build is an I/O-heavy operation until the compute reports
        # otherwise, as Nova counts it.
        self.num_io_ops += 1
        self._update_capacity()

    def __repr__(self):
        return ('(%s, %s) ram: %sMB disk: %sMB io_ops: %s instances: %s'
                % (self.host, self.nodename, self.free_ram_mb,
                   self.free_disk_mb, self.num_io_ops, self.num_instances))
