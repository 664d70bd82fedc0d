"""Host states and request specs for filter and weigher tests.

Built to the HostState contract of issue 4 (aggregates with metadata,
availability_zone, instances, metrics, pci_stats, numa_topology,
failed_builds): attributes the host manager does not fill yet are set
directly, so these tests do not depend on how it fills them.
"""

import dataclasses

from oslo_utils import uuidutils

from nova_lite import objects

from . import fakes

_CAPACITY_KEYS = ('vcpus', 'memory_mb', 'disk_gb', 'used', 'up', 'disabled',
                  'cpu_ratio', 'ram_ratio', 'disk_ratio', 'reserved',
                  'generation', 'uuid', 'stats')


@dataclasses.dataclass
class Aggregate:
    """A Nova host aggregate as filters see it."""
    name: str
    metadata: dict
    hosts: list = dataclasses.field(default_factory=list)
    uuid: str = dataclasses.field(default_factory=uuidutils.generate_uuid)

    @property
    def availability_zone(self):
        return self.metadata.get('availability_zone')


def aggregate(name='agg', hosts=(), **metadata):
    return Aggregate(name, {k: str(v) for k, v in metadata.items()},
                     list(hosts))


@dataclasses.dataclass
class HostInstance:
    """An instance on a host, as host_state.instances holds it."""
    uuid: str = dataclasses.field(default_factory=uuidutils.generate_uuid)
    project_id: str = 'project'
    vm_state: str = 'active'
    task_state: str = None
    flavor: object = None
    image_properties: dict = dataclasses.field(default_factory=dict)
    group_uuids: set = dataclasses.field(default_factory=set)


@dataclasses.dataclass
class Group:
    """An InstanceGroup as RequestSpec.instance_group carries it."""
    policy: str
    hosts: list = dataclasses.field(default_factory=list)
    members: list = dataclasses.field(default_factory=list)
    rules: dict = dataclasses.field(default_factory=dict)
    name: str = 'group-1'
    uuid: str = dataclasses.field(default_factory=uuidutils.generate_uuid)


@dataclasses.dataclass
class Retry:
    """SchedulerRetries: hosts are [host, node] pairs already tried."""
    hosts: list
    num_attempts: int = 1


def host(name='host1', aggregates=(), instances=(), **attrs):
    """A HostState (fakes.host for capacity) with the other attributes
    of ``attrs`` set as the host manager would; ``instances`` are
    HostInstances or uuids."""
    capacity = {k: attrs.pop(k) for k in _CAPACITY_KEYS if k in attrs}
    state = fakes.host(name, **capacity)
    state.aggregates = list(aggregates)
    # Assigned whole: a HostState keeps its instances packed, and the
    # dict ``instances`` gives is made at each read.
    state.instances = [HostInstance(uuid=inst) if isinstance(inst, str)
                       else inst for inst in instances]
    state.availability_zone = attrs.pop('availability_zone', 'nova')
    state.metrics = attrs.pop('metrics', {})
    state.pci_stats = attrs.pop('pci_stats', [])
    state.numa_topology = attrs.pop('numa_topology', [])
    state.failed_builds = attrs.pop('failed_builds', 0)
    for key, value in attrs.items():
        if not hasattr(state, key):
            raise AttributeError('HostState has no %s' % key)
        setattr(state, key, value)
    return state


class SpecWithExtras:
    """A RequestSpec plus fields its current version may lack
    (``instance_group``, ``retry``), read as filters read any field."""

    def __init__(self, spec, **extras):
        self._spec = spec
        self._extras = extras

    def __getattr__(self, name):
        if name in self._extras:
            return self._extras[name]
        return getattr(self._spec, name)

    def obj_attr_is_set(self, name):
        return name in self._extras or self._spec.obj_attr_is_set(name)


def spec(extra_specs=None, image=None, image_id=None, hints=None,
         flavor_name='f1', instance_group=None, retry=None, **kwargs):
    """A RequestSpec: ``extra_specs`` of the flavor, ``image`` properties
    (a dict; an ImageMeta with ``image_id`` is built when either is
    given), ``hints`` as the API stores them (a value or a list)."""
    result = fakes.spec(**kwargs)
    result.flavor.name = flavor_name
    result.flavor.extra_specs = dict(extra_specs or {})
    if image is not None or image_id is not None:
        result.image = objects.ImageMeta.from_image(
            {'id': image_id or uuidutils.generate_uuid(),
             'properties': image or {}})
    result.scheduler_hints = {
        key: [str(v) for v in value] if isinstance(value, list)
        else [str(value)] for key, value in (hints or {}).items()}
    extras = {}
    if instance_group is not None:
        extras['instance_group'] = instance_group
    if retry is not None:
        extras['retry'] = retry
    return SpecWithExtras(result, **extras) if extras else result


def names(hosts):
    return [h.host for h in hosts]


MEMBERS = ['00000000-0000-4000-8000-0000000000%02d' % i for i in range(12)]

_AGGREGATES = [
    aggregate('az1', availability_zone='az1'),
    aggregate('tenant-x', filter_tenant_id='X'),
    aggregate('small', instance_type='m1.small,m1.nano'),
    aggregate('busy', max_io_ops_per_host='2', max_instances_per_host='3'),
    aggregate('dense', ram_allocation_ratio='0.5', cpu_allocation_ratio='0.5',
              disk_allocation_ratio='0.5'),
    aggregate('ssd', ssd='true', os_distro='windows'),
]


def random_numa_cell(rng, cell_id, cpus, memory_mb):
    """A NUMA cell as a compute reports it, with random usage: one set
    for shared and pinned guests or two, cores of one or two threads,
    sometimes 4 KiB and 2 MiB page pools."""
    cell = {'id': cell_id, 'cpus': cpus, 'memory_mb': memory_mb,
            'pinned_cpus': sorted(rng.sample(cpus, rng.randint(
                0, len(cpus) // 2))),
            'cpu_usage': rng.randint(0, len(cpus) * 2),
            'memory_usage': rng.randint(0, memory_mb)}
    if rng.random() < 0.5:
        threads = rng.choice([1, 2])
        cell['siblings'] = [cpus[i:i + threads]
                            for i in range(0, len(cpus), threads)]
    if rng.random() < 0.3:
        cut = rng.randint(0, len(cpus))
        cell['cpuset'], cell['pcpuset'] = cpus[:cut], cpus[cut:]
        cell['pinned_cpus'] = [c for c in cell['pinned_cpus']
                               if c in cell['pcpuset']]
    if rng.random() < 0.3:
        huge = rng.randint(0, memory_mb // 4)
        cell['mempages'] = [
            {'size_kb': 4, 'total': (memory_mb - 2 * huge) * 256,
             'used': 0, 'reserved': 0},
            {'size_kb': 2048, 'total': huge, 'used': rng.randint(0, huge),
             'reserved': 0}]
    return cell


def random_host(rng, index):
    """One host of a varied fleet: capacity, service state, aggregates,
    instances, metrics, PCI pools, NUMA cells, addresses, hypervisors."""
    vcpus = rng.choice([2, 8, 16])
    memory = rng.choice([2048, 8192])
    cells = [random_numa_cell(rng, i, list(range(i * vcpus // 2,
                                                 (i + 1) * vcpus // 2)),
                              memory // 2)
             for i in range(2)]
    return host(
        'h%d' % index, vcpus=vcpus, memory_mb=memory,
        disk_gb=rng.choice([5, 50]), cpu_ratio=rng.choice([1.0, 4.0]),
        ram_ratio=rng.choice([0.5, 1.5]),
        used={'VCPU': rng.randint(0, vcpus),
              'MEMORY_MB': rng.randint(0, memory),
              'DISK_GB': rng.randint(0, 4)},
        up=rng.random() > 0.2, disabled=rng.random() > 0.8,
        aggregates=rng.sample(_AGGREGATES, rng.randint(0, 2)),
        instances=rng.sample(MEMBERS, rng.randint(0, 2)),
        availability_zone=rng.choice(['nova', 'az2']),
        metrics=dict(rng.sample([('cpu.percent', 10.0),
                                 ('mem.free', 500.0)], rng.randint(0, 2))),
        pci_stats=[{'vendor_id': '8086', 'product_id': '0443',
                    'dev_type': 'type-PCI', 'numa_node': 0,
                    'count': rng.randint(0, 3)}],
        numa_topology=cells if rng.random() > 0.2 else [],
        num_io_ops=rng.randint(0, 10), num_instances=rng.randint(0, 60),
        host_ip='192.168.%d.%d' % (rng.randint(0, 1), 10 + index % 200),
        hypervisor_type=rng.choice(['qemu', 'xen']),
        hypervisor_version=rng.choice([6000, 7001]),
        cpu_info='{"arch": "%s"}' % rng.choice(['x86_64', 'aarch64']))


def random_fleet(rng, count=200):
    return [random_host(rng, i) for i in range(count)]
