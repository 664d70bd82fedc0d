"""Options of the fake virt driver: what nodes one compute pretends to have.

Example: two nodes with defaults, a third bigger one that fails every spawn,
reboots that take two seconds and fail on node 1::

    [fake_driver]
    node_count = 3
    node = 2:vcpus=64,memory_mb=262144,traits=CUSTOM_GPU
    fail_spawn_nodes = 2
    operation_delays = reboot:2
    fail_operations = reboot:1
"""

from oslo_config import cfg

fake_group = cfg.OptGroup('fake_driver', title='Fake virt driver',
                          help='The in-memory driver nova_lite ships.')

fake_opts = [
    cfg.IntOpt('node_count', default=1, min=1,
               help='Nodes (resource providers) this compute exposes. '
                    'Each keeps its uuid across restarts in '
                    '$state_path/fake_driver/<host>.json.'),
    cfg.StrOpt('node_name_template', default='%(host)s-n%(index)d',
               help='Name of each node; %(host)s is [DEFAULT] host, '
                    '%(index)d counts from 0. Names must differ, and they '
                    'are the nodes\' hypervisor_hostname and resource '
                    'provider names.'),
    cfg.IntOpt('vcpus', default=16, min=0,
               help='Physical CPUs of each node (the node option can '
                    'override it per node).'),
    cfg.IntOpt('memory_mb', default=65536, min=0,
               help='RAM of each node, in MiB (the node option can '
                    'override it per node).'),
    cfg.IntOpt('local_gb', default=1000, min=0,
               help='Disk of each node, in GiB (the node option can '
                    'override it per node).'),
    cfg.StrOpt('hypervisor_type', default='fake',
               help='Hypervisor type every node reports.'),
    cfg.IntOpt('hypervisor_version', default=1000,
               help='Hypervisor version, as an integer.'),
    cfg.StrOpt('cpu_arch', default='x86_64',
               help='CPU architecture every node reports.'),
    cfg.StrOpt('cpu_model', default='fake-cpu',
               help='CPU model written into cpu_info.'),
    cfg.ListOpt('traits',
                default=['COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_IMAGE_TYPE_QCOW2',
                         'HW_CPU_X86_SSE2'],
                help='Capability traits every node reports: os-traits names '
                     'or CUSTOM_* names. The compute owns these: it adds '
                     'and removes them on each report, and never touches '
                     'other traits set on the provider.'),
    cfg.ListOpt('metrics', default=[],
                help='Metrics every node reports, as "name=number" items '
                     '(for example "cpu.percent=10, mem.free=1000"), read '
                     'by MetricsFilter and MetricsWeigher. The node option '
                     'overrides them per node with metrics=NAME=N+NAME=N. '
                     'Empty: no metrics.'),
    cfg.ListOpt('pci_devices', default=[],
                help='PCI device pools every node has, as '
                     '"vendor_id:product_id:count[:numa_node[:dev_type]]" '
                     'items (ids are 4 hexadecimal digits, dev_type is '
                     'type-PCI (default), type-PF or type-VF), read by '
                     'PciPassthroughFilter against [pci] alias. The node '
                     'option overrides them per node with '
                     'pci_devices=POOL+POOL. Empty: no PCI devices.'),
    cfg.IntOpt('numa_nodes', default=0, min=0,
               help='NUMA cells of every node: its CPUs and RAM split '
                    'evenly among them, read by NUMATopologyFilter. 0 '
                    '(the default) reports no NUMA topology. The node '
                    'option overrides it per node with numa_nodes=N.'),
    cfg.StrOpt('cpu_dedicated_set',
               help='Host CPUs (a CPU set such as "0-3,^2,8-11", ids '
                    'counted across the node) for pinned guest CPUs '
                    '(hw:cpu_policy dedicated or mixed), reported per NUMA '
                    'cell as its pcpuset, as Nova\'s [compute] '
                    'cpu_dedicated_set. Must not overlap cpu_shared_set. '
                    'When only this is set, no CPU serves shared guest '
                    'CPUs. Neither set: every CPU serves both, as a Nova '
                    'host configured with vcpu_pin_set.'),
    cfg.StrOpt('cpu_shared_set',
               help='Host CPUs for shared (unpinned) guest CPUs, reported '
                    'per NUMA cell as its cpuset, as Nova\'s [compute] '
                    'cpu_shared_set. See cpu_dedicated_set.'),
    cfg.IntOpt('threads_per_core', default=1, min=1,
               help='Hardware threads per core of every NUMA cell: CPUs '
                    'are grouped in this order into thread sibling sets, '
                    'read by the hw:cpu_thread_policy rules (1: no '
                    'hyperthreading).'),
    cfg.ListOpt('huge_pages', default=[],
                help='Huge page pools of every NUMA cell as '
                     '"SIZE_KB:COUNT" items (for example "2048:512, '
                     '1048576:1"); the rest of the cell\'s memory is in '
                     '4 KiB pages. Read by hw:mem_page_size. Empty: no '
                     'page pools are reported.'),
    cfg.IntOpt('numa_cells_per_socket', default=1, min=1,
               help='NUMA cells per CPU socket (cell i is on socket i // '
                    'this), read by the socket PCI NUMA affinity policy.'),
    cfg.MultiStrOpt('node', default=[],
                    help='Per-node overrides as "INDEX_OR_NAME:key=value,'
                         'key=value". The target is a node index (all '
                         'digits, counting from 0, must be below '
                         'node_count) or a node name; a name that is not a '
                         'node of this host is ignored, so one file can '
                         'serve several hosts. Keys: vcpus, memory_mb, '
                         'local_gb, hypervisor_version, numa_nodes '
                         '(non-negative integers), hypervisor_type, '
                         'cpu_arch, cpu_model, and traits, metrics and '
                         'pci_devices (items joined with "+", replacing '
                         'the option of that name for that node). Repeat '
                         'the option for several nodes. A malformed value '
                         'stops the compute with an error quoting it.'),
    cfg.ListOpt('fail_spawn_nodes', default=[],
                help='Fault injection: nodes (indexes or names, as for '
                     'the node option) where every spawn fails with '
                     'InstanceDeployFailure, so the build is rescheduled '
                     'to an alternate host.'),
    cfg.FloatOpt('spawn_delay', default=0.0, min=0.0,
                 help='Seconds each spawn takes, to make builds overlap '
                      'the way real ones do (0 means instant).'),
    cfg.FloatOpt('destroy_delay', default=0.0, min=0.0,
                 help='Seconds each destroy takes (0 means instant).'),
    cfg.DictOpt('operation_delays', default={},
                help='Seconds each server operation takes, as '
                     '"operation:seconds" items (for example "reboot:2, '
                     'power_off:0.5"). Operations: the names of '
                     'nova_lite.virt.fake.OPERATIONS (reboot, power_off, '
                     'power_on, pause, unpause, suspend, resume, rebuild '
                     '(in place, or on the target of an evacuation), '
                     'those of moves, snapshot, shelve_offload, unshelve, '
                     'and those of live migration: '
                     'check_can_live_migrate_destination, '
                     'pre_live_migration, live_migration (the copy, which '
                     'an abort or force_complete ends early), '
                     'post_live_migration_at_destination, '
                     'rollback_live_migration_at_destination). An '
                     'operation not listed is instant. '
                     'Read at each call. spawn_delay and '
                     'destroy_delay time spawn and destroy.'),
    cfg.ListOpt('fail_operations', default=[],
                help='Fault injection: "operation:node" items (node an '
                     'index or a name, as for the node option, or * for '
                     'every node of this host): that operation fails with '
                     'InstanceOperationFailed on that node, after its '
                     'delay, and the VM keeps its power state. Operations '
                     'as for operation_delays.'),
]


def register_opts(conf):
    conf.register_group(fake_group)
    conf.register_opts(fake_opts, group=fake_group)


def list_opts():
    return {fake_group: fake_opts}
