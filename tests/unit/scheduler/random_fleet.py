"""Random fleets, requests and scheduler settings from a seeded
``random.Random``: the same seed builds equal fleets and requests, so
two scheduling paths can each get their own copy.

Fleets have several nodes per host sometimes, hosts down, disabled or
without a service, varied inventories (reserved, ratios, min/max units,
step sizes, custom classes), traits, host aggregates with metadata
(mirrored into placement aggregates), instances in server groups with
flavors and image properties, metrics, PCI pools and NUMA cells.
"""

import json
import types
import uuid as uuid_mod

from oslo_utils import timeutils

from nova_lite import objects
from nova_lite.placement import providers
from nova_lite.placement import summaries
from nova_lite.scheduler import host_state

from . import fake_hosts

TRAITS = ['HW_CPU_X86_AVX2', 'CUSTOM_SSD', 'COMPUTE_IMAGE_TYPE_QCOW2',
          'COMPUTE_STATUS_DISABLED']
MEMBERS = ['00000000-0000-4000-8000-0000000000%02d' % i for i in range(16)]
GROUPS = ['11111111-0000-4000-8000-0000000000%02d' % i for i in range(3)]
ISOLATED_IMAGE = '22222222-0000-4000-8000-000000000001'
PCI_ALIAS = json.dumps({'name': 'qat', 'vendor_id': '8086',
                        'product_id': '0443', 'device_type': 'type-PCI'})

AGGREGATE_METADATA = [
    {'availability_zone': 'az1'}, {'availability_zone': 'az2'},
    {'filter_tenant_id': 'p1'},
    {'filter_tenant_id': 'p2,p3', 'filter_tenant_id2': 'p4'},
    {'instance_type': 'f-small,f-big'}, {'ssd': 'true'},
    {'ssd': 'false,maybe'}, {'os_distro': 'linux'},
    {'hw_architecture': 'x86_64,aarch64'},
    {'ram_allocation_ratio': '0.5'}, {'cpu_allocation_ratio': '2.0'},
    {'disk_allocation_ratio': 'bad'}, {'max_io_ops_per_host': '2'},
    {'max_instances_per_host': '3'}, {'max_instances_per_host': 'x'},
    {'ram_weight_multiplier': '-1.0'}, {'cpu_weight_multiplier': '3'},
    {'pci_weight_multiplier': '-2'},
    {'soft_affinity_weight_multiplier': '2.0'},
    {'io_ops_weight_multiplier': '0'}, {'metrics_weight_multiplier': '0'},
    {'image_props_weight_multiplier': '1.5'},
    {'build_failure_weight_multiplier': '10'},
    {'trait:CUSTOM_SSD': 'required'},
]

EXTRA_SPECS = [
    {'capabilities:hypervisor_type': 'qemu'},
    {'capabilities:hypervisor_type': '<or> xen <or> kvm'},
    {'capabilities:cpu_info:arch': 'x86_64'},
    {'capabilities:hypervisor_version': '>= 7000'},
    {'capabilities:stats:gpu': 's== yes'},
    {'hypervisor_type': 'qemu'},
    {'aggregate_instance_extra_specs:ssd': 'true'},
    {'aggregate_instance_extra_specs:ssd': '<in> ay'},
    {'hw:numa_nodes': '2'}, {'hw:cpu_policy': 'dedicated'},
    {'hw:mem_page_size': 'large'}, {'hw:mem_page_size': 'small'},
    {'hw:cpu_policy': 'dedicated', 'hw:cpu_thread_policy': 'isolate'},
    {'hw:cpu_policy': 'dedicated', 'hw:cpu_thread_policy': 'require'},
    {'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '0'},
    {'pci_passthrough:alias': 'qat:1'}, {'pci_passthrough:alias': 'qat:3'},
    {'pci_passthrough:alias': 'nope:1'},
    {'trait:CUSTOM_SSD': 'required'},
    {'trait:HW_CPU_X86_AVX2': 'forbidden'},
    {'hw:maxphysaddr_bits': '42'},
    {'capabilities:service:disabled': 'False'},
]

IMAGE_PROPERTIES = [
    {'hw_architecture': 'x86_64'}, {'hw_architecture': 'aarch64'},
    {'architecture': 'amd64'}, {'img_hv_type': 'qemu'},
    {'img_hv_type': 'xen', 'hw_vm_mode': 'hvm'},
    {'img_hv_requested_version': '>= 7000'},
    {'img_hv_requested_version': '<= 6.2'},
    {'img_hv_requested_version': 'bad'}, {'os_distro': 'linux'},
    {'os_distro': 'windows'}, {'trait:CUSTOM_SSD': 'required'},
    {'hw_numa_nodes': 2}, {'hw_mem_page_size': '2MB'},
    {'hw_cpu_policy': 'dedicated', 'hw_cpu_thread_policy': 'prefer'},
    {'hw_architecture': 'x86_64', 'img_hv_requested_version': '>= 6.2, < 7'},
    {'hw_vm_mode': 'hvm', 'img_hv_requested_version': '>=6000'},
]

QUERIES = [
    ['>=', '$free_ram_mb', 1024],
    ['and', ['>=', '$free_ram_mb', 1024],
     ['not', ['=', '$hypervisor_type', 'xen']]],
    ['or', ['<', '$num_instances', 2], ['in', '$hypervisor_type', 'kvm']],
    ['=', '$stats.gpu', 'yes'], ['frob', 1], 'not a list',
    ['=', '$host_ip', '10.0.1.5'], ['<', '$host_ip', '10.0.1.9'],
    ['in', '$host_ip', '10.0.1.5', 'fe80::1'],
]


def _uuid(rng):
    return str(uuid_mod.UUID(int=rng.getrandbits(128), version=4))


def flavor(rng, extra_specs=None, name=None):
    vcpus = rng.choice([1, 2, 4])
    return objects.Flavor(
        flavorid='f', name=name or rng.choice(['f-small', 'f-big',
                                               'f-other']),
        vcpus=vcpus, memory_mb=rng.choice([256, 1024, 4096]),
        root_gb=rng.choice([1, 10, 40]), ephemeral_gb=rng.choice([0, 5]),
        swap=rng.choice([0, 512]), extra_specs=dict(extra_specs or {}))


def _aggregates(rng, hosts):
    result = []
    for index in range(rng.randint(0, 6)):
        metadata = {}
        for item in rng.sample(AGGREGATE_METADATA, rng.randint(1, 2)):
            metadata.update(item)
        agg = types.SimpleNamespace(
            id=index + 1, uuid=_uuid(rng), name='agg%d' % index,
            metadata=metadata,
            hosts=sorted(rng.sample(hosts, rng.randint(0, len(hosts)))))
        result.append(host_state.AggregateView(agg))
    return result


def _inventories(rng, vcpus, memory, disk):
    result = {}
    for rc, total in (('VCPU', vcpus), ('MEMORY_MB', memory),
                      ('DISK_GB', disk), ('CUSTOM_X', 4)):
        if rc == 'DISK_GB' and rng.random() < 0.05:
            continue
        if rc == 'CUSTOM_X' and rng.random() < 0.8:
            continue
        result[rc] = providers.Inventory(
            total=total, reserved=rng.choice([0, 0, total // 8]),
            min_unit=1 if rng.random() < 0.9 else 2,
            max_unit=total if rng.random() < 0.9 else total // 2 or 1,
            step_size=1 if rng.random() < 0.9 else 2,
            allocation_ratio=rng.choice([1.0, 1.5, 4.0, 0.5]))
    return result


def _instances(rng, flavors, group_hosts):
    found = []
    for _ in range(rng.randint(0, 3)):
        uuid = rng.choice(MEMBERS + [_uuid(rng)] * 4)
        found.append(host_state.HostInstance(
            uuid=uuid, project_id=rng.choice(['p1', 'p2']),
            vm_state=rng.choice(['active', 'active', 'building']),
            task_state=rng.choice([None, None, 'image_snapshot']),
            flavor=rng.choice(flavors),
            image_properties=dict(rng.choice(IMAGE_PROPERTIES[:2] + [{}])),
            group_uuids=frozenset(rng.sample(GROUPS, rng.randint(0, 1)))))
    return {inst.uuid: inst for inst in found}.values()


def _node(rng, uuid, host, nodename, vcpus, memory):
    stats = {'failed_builds': str(rng.choice([0, 0, 0, 1, 3]))}
    if rng.random() < 0.3:
        stats['gpu'] = rng.choice(['yes', 'no'])
    return objects.ComputeNode(
        uuid=uuid, host=host, hypervisor_hostname=nodename, vcpus=vcpus,
        memory_mb=memory, local_gb=100,
        hypervisor_type=rng.choice(['qemu', 'kvm', 'xen', 'QEMU']),
        hypervisor_version=rng.choice([6000, 6002, 7001]),
        cpu_info=rng.choice(['{"arch": "x86_64"}', '{"arch": "aarch64"}',
                             '{}', '{"arch": "x86_64", "maxphysaddr": '
                             '{"mode": "emulate", "bits": 46}}']),
        host_ip=rng.choice(['10.0.0.%d' % rng.randint(1, 9),
                            '10.0.1.5', 'fe80::1', None]),
        stats=stats,
        metrics=dict(rng.sample([('cpu.percent', float(rng.randint(0, 9))),
                                 ('mem.free', 500.0)], rng.randint(0, 2))),
        pci_device_pools=[{'vendor_id': '8086', 'product_id': '0443',
                           'dev_type': 'type-PCI', 'numa_node': 0,
                           'count': rng.randint(0, 3)}]
        if rng.random() < 0.5 else None,
        numa_topology=[_numa_cell(rng, i, list(range(
            i * vcpus // 2, (i + 1) * vcpus // 2)), memory // 2)
            for i in range(2)] if rng.random() < 0.6 else None)


def _numa_cell(rng, cell_id, cpus, memory_mb):
    """A reported cell: no usage (the scheduler adds the instances')."""
    cell = fake_hosts.random_numa_cell(rng, cell_id, cpus, memory_mb)
    cell.update(pinned_cpus=[], cpu_usage=0, memory_usage=0)
    for pool in cell.get('mempages', ()):
        pool['used'] = 0
    return cell


def _service(rng, host, now):
    if rng.random() < 0.05:
        return None
    seen = now if rng.random() < 0.85 else now.replace(year=now.year - 1)
    return objects.Service(id=rng.randint(1, 10**6), host=host,
                           binary='nova-lite-compute',
                           disabled=rng.random() < 0.1,
                           disabled_reason=None, forced_down=False,
                           last_seen_up=seen)


def fleet(rng):
    """(host states, host aggregates) of a random fleet."""
    count = rng.randint(1, 30)
    names = []
    for index in range(count):
        shared = names and rng.random() < 0.15
        names.append(rng.choice(names) if shared else 'h%d' % index)
    aggregates = _aggregates(rng, sorted(set(names)))
    flavors = [None, flavor(rng), flavor(rng, {'hw:numa_nodes': '1'}),
               flavor(rng, {'pci_passthrough:alias': 'qat:1'})]
    now = timeutils.utcnow().replace(tzinfo=None)
    services = {name: _service(rng, name, now) for name in sorted(set(names))}
    states = []
    for index, name in enumerate(names):
        uuid = _uuid(rng)
        nodename = name if names.count(name) == 1 else '%s-n%d' % (name,
                                                                   index)
        vcpus = rng.choice([2, 8, 16])
        memory = rng.choice([2048, 8192, 16384])
        mine = [agg for agg in aggregates if name in agg.hosts]
        summary = summaries.ProviderSummary(uuid, nodename, rng.randint(1, 9))
        summary.inventories.update(_inventories(rng, vcpus, memory, 100))
        # Mostly room to spare; sometimes more used than there is (the
        # ratio lowered since), which weighers clamp.
        summary.usages.update({rc: rng.randint(0, inv.total // 2
                                               if rng.random() < 0.9
                                               else inv.total * 5)
                               for rc, inv in summary.inventories.items()
                               if rng.random() < 0.7})
        summary.traits.update(t for t in TRAITS if rng.random() < (
            0.1 if t == 'COMPUTE_STATUS_DISABLED' else 0.3))
        summary.aggregates.update(agg.uuid for agg in mine)
        state = host_state.HostState.from_records(
            _node(rng, uuid, name, nodename, vcpus, memory), services[name],
            summary)
        state.set_aggregates(mine)
        if rng.random() < 0.9:
            state.set_instances(_instances(rng, flavors, names))
        states.append(state)
    return states, aggregates


def _image(rng):
    properties = {}
    for item in rng.sample(IMAGE_PROPERTIES, rng.randint(0, 2)):
        properties.update(item)
    return objects.ImageMeta.from_image(
        {'id': rng.choice([ISOLATED_IMAGE, _uuid(rng)]),
         'disk_format': rng.choice(['qcow2', 'raw']),
         'properties': properties})


def _hints(rng, hosts):
    hints = {}
    if rng.random() < 0.15:
        hints['same_host'] = rng.sample(MEMBERS, rng.randint(1, 3))
    if rng.random() < 0.15:
        hints['different_host'] = rng.sample(MEMBERS, rng.randint(1, 3))
    if rng.random() < 0.15:
        query = rng.choice(QUERIES)
        hints['query'] = [query if isinstance(query, str)
                          else json.dumps(query)]
    if rng.random() < 0.15:
        hints['build_near_host_ip'] = [rng.choice(['10.0.0.1', 'fe80::'])]
        hints['cidr'] = [rng.choice(['/24', '16', '/64', 'x'])]
    if rng.random() < 0.1:
        hints['_nova_check_type'] = ['rebuild']
    return hints


def group(rng, hosts, project_id, policy=None):
    """A random server group (of ``policy``, else a random one)."""
    return objects.InstanceGroup(
        uuid=rng.choice(GROUPS), name='g',
        policy=policy or rng.choice(['affinity', 'anti-affinity',
                                     'soft-affinity', 'soft-anti-affinity']),
        rules=rng.choice([{}, {'max_server_per_host': rng.randint(1, 3)},
                          {'max_server_per_host': '0'}]),
        project_id=project_id, user_id='u',
        members=rng.sample(MEMBERS, rng.randint(0, 4)),
        hosts=rng.sample(hosts, min(len(hosts), rng.randint(0, 2))))


def request(rng, states):
    """(RequestSpec, instance uuids) of a random request on ``states``."""
    hosts = sorted({state.host for state in states})
    specs = {}
    for item in rng.sample(EXTRA_SPECS, rng.choice([0, 0, 1, 2])):
        specs.update(item)
    project_id = rng.choice(['p1', 'p2', 'p3', 'p5'])
    spec = objects.RequestSpec(
        project_id=project_id, user_id='u', flavor=flavor(rng, specs),
        num_instances=rng.choice([1, 1, 1, 2, 3]),
        scheduler_hints=_hints(rng, hosts))
    if rng.random() < 0.9:
        spec.image = _image(rng)
    else:
        spec.is_bfv = True
    if rng.random() < 0.3:
        spec.availability_zone = rng.choice(['az1', 'az2', 'nova'])
    if rng.random() < 0.3:
        spec.instance_group = group(rng, hosts, project_id)
    if rng.random() < 0.15:
        spec.retry = objects.SchedulerRetries(num_attempts=1, hosts=[
            [state.host, state.nodename]
            for state in rng.sample(states, min(2, len(states)))])
    if rng.random() < 0.05:
        spec.ignore_hosts = rng.sample(hosts, 1)
    if rng.random() < 0.03:
        spec.force_hosts = [rng.choice(hosts).upper()]
    if rng.random() < 0.03:
        spec.force_nodes = [rng.choice(states).nodename]
    uuids = [_uuid(rng) for _ in range(spec.num_instances)]
    if spec.num_instances == 1 and rng.random() < 0.2:
        # An instance already on a host (a move asks again).
        uuids = [rng.choice(MEMBERS)]
    return spec, uuids
