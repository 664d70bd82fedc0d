"""Options of the scheduler: ``[scheduler]`` and ``[filter_scheduler]``."""

from oslo_config import cfg

# The canonical CPU architecture names (those ImagePropertiesFilter
# compares, as Nova canonicalizes them): the values
# image_properties_default_architecture accepts.
ARCHITECTURES = (
    'alpha', 'armv6', 'armv7l', 'armv7b', 'aarch64', 'cris', 'i686',
    'ia64', 'lm32', 'm68k', 'microblaze', 'microblazeel', 'mips', 'mipsel',
    'mips64', 'mips64el', 'openrisc', 'parisc', 'parisc64', 'ppc', 'ppcle',
    'ppc64', 'ppc64le', 'ppcemb', 's390', 's390x', 'sh4', 'sh4eb', 'sparc',
    'sparc64', 'unicore32', 'x86_64', 'xtensa', 'xtensaeb')

scheduler_group = cfg.OptGroup('scheduler', title='Scheduler options')
filter_group = cfg.OptGroup('filter_scheduler',
                            title='Filter scheduler options')

scheduler_opts = [
    cfg.IntOpt('max_attempts',
               default=3, min=1,
               help='Hosts tried per instance: the chosen host plus '
                    'max_attempts - 1 alternates the conductor falls back '
                    'to when a build fails.'),
    cfg.IntOpt('host_state_load_batch',
               default=1000, min=0,
               help='Compute nodes read at a time when the scheduler '
                    'loads its host states at start-up: the node, '
                    'provider and instance records of one batch are read, '
                    'made into host states and dropped before the next '
                    'batch is read, so the load holds one batch of '
                    'records rather than the whole fleet\'s (whose memory '
                    'a large fleet would keep). 0 reads every node at '
                    'once.'),
    cfg.IntOpt('host_state_resync_interval',
               default=60, min=1,
               help='Seconds between catch-ups of the scheduler\'s '
                    'in-memory host states: it compares every host\'s '
                    'provider generation and compute node update time, '
                    'and every host aggregate, with the database and '
                    're-reads only those that differ. Host states are '
                    'otherwise kept current by the change notices every '
                    'placement, compute node, service and aggregate write '
                    'publishes; this bounds how long a lost notice leaves '
                    'a host stale. Nothing is reloaded whole after '
                    'start-up.'),
    cfg.FloatOpt('change_notice_delay',
                 default=0.05, min=0, max=5,
                 help='Seconds a service may hold a change notice for the '
                      'schedulers (the ``update_provider_states`` fanout '
                      'sent once a write commits) that carries only the '
                      'boots\' own stream: claims of allocations and '
                      'instance state changes. Changes committed meanwhile '
                      'go out in the same fanout; every notice costs each '
                      'scheduler a message to read, and under a steady '
                      'stream of boots this saves most of them. Any other '
                      'change (a service disabled, inventories, traits, '
                      'aggregates, the resources a delete frees) is sent at '
                      'once, with whatever waits. A scheduler\'s own '
                      'claims are in its host states at once whatever the '
                      'delay; other schedulers see a claim this much '
                      'later, and a claim made meanwhile on the older '
                      'state fails its generation check and is decided '
                      'again. 0 sends every notice as soon as the sender is '
                      'free.'),
    # Prefilters (nova_lite/scheduler/request_filter.py): they narrow the
    # hosts by traits and placement aggregates before the filters run.
    cfg.BoolOpt('query_placement_for_availability_zone',
                default=True,
                help='Prefilter: a request for an availability zone only '
                     'considers hosts whose providers are in an aggregate '
                     'with that availability_zone metadata. A zone no '
                     'aggregate names (such as the default one) narrows '
                     'nothing. False leaves zones to '
                     'AvailabilityZoneFilter.'),
    cfg.BoolOpt('query_placement_for_image_type_support',
                default=False,
                help='Prefilter: only consider hosts whose providers have '
                     'the COMPUTE_IMAGE_TYPE_<DISK_FORMAT> trait of the '
                     'request\'s image (for example '
                     'COMPUTE_IMAGE_TYPE_QCOW2), so an image goes only '
                     'where the driver can boot its format.'),
    cfg.BoolOpt('enable_isolated_aggregate_filtering',
                default=False,
                help='Prefilter: an aggregate whose metadata has '
                     '"trait:<TRAIT>=required" keys only takes requests '
                     'whose flavor or image require every one of those '
                     'traits; other requests avoid its hosts.'),
    cfg.BoolOpt('limit_tenants_to_placement_aggregate',
                default=False,
                help='Prefilter: a project named in the metadata of an '
                     'aggregate (keys filter_tenant_id, filter_tenant_id2, '
                     '...) is scheduled only to that aggregate\'s hosts. '
                     'Projects no aggregate names go anywhere, unless '
                     'placement_aggregate_required_for_tenants is set.'),
    cfg.BoolOpt('placement_aggregate_required_for_tenants',
                default=False,
                help='With limit_tenants_to_placement_aggregate: a project '
                     'that no aggregate names gets no host at all (its '
                     'requests fail with NoValidHost) instead of any '
                     'host.'),
]

filter_opts = [
    cfg.MultiStrOpt('available_filters',
                    default=['nova_lite.scheduler.filters.all_filters'],
                    help='Filters the scheduler may use: '
                         '"nova_lite.scheduler.filters.all_filters" for '
                         'every built-in, or the class path of a custom '
                         'filter. Repeat the option for several.'),
    cfg.ListOpt('enabled_filters',
                default=['ComputeFilter', 'ComputeCapabilitiesFilter',
                         'ImagePropertiesFilter',
                         'ServerGroupAntiAffinityFilter',
                         'ServerGroupAffinityFilter'],
                help='Filters applied to every request, in this order, '
                     'after the placement step (which already checks '
                     'VCPU, RAM and disk). Each must be among '
                     'available_filters, by class name. Put cheap '
                     'filters that remove many hosts first. The default '
                     'is Nova\'s: running and enabled computes, flavor '
                     'capabilities, image properties, server group '
                     'anti-affinity and affinity.'),
    cfg.ListOpt('weight_classes',
                default=['nova_lite.scheduler.weighers.all_weighers'],
                help='Weighers applied to every request: '
                     '"nova_lite.scheduler.weighers.all_weighers", '
                     'entry point names, or class paths.'),
    cfg.FloatOpt('ram_weight_multiplier', default=1.0,
                 help='Multiplier of the RAM weigher. Positive spreads '
                      'instances over hosts with the most free RAM; '
                      'negative stacks them. Like every weigher '
                      'multiplier, aggregate metadata of the same name '
                      'overrides it for the aggregate\'s hosts (the '
                      'smallest value when several aggregates give one).'),
    cfg.FloatOpt('cpu_weight_multiplier', default=1.0,
                 help='Multiplier of the CPU weigher. Positive spreads by '
                      'free VCPUs; negative stacks.'),
    cfg.FloatOpt('disk_weight_multiplier', default=1.0,
                 help='Multiplier of the disk weigher. Positive spreads by '
                      'free disk; negative stacks.'),
    cfg.FloatOpt('io_ops_weight_multiplier', default=-1.0,
                 help='Multiplier of the I/O ops weigher. Negative (the '
                      'default) prefers hosts with fewer I/O-heavy '
                      'operations in progress; positive prefers busier '
                      'hosts.'),
    cfg.FloatOpt('pci_weight_multiplier', default=1.0, min=0.0,
                 help='Multiplier of the PCI weigher, which keeps hosts '
                      'with free PCI devices for requests that need them. '
                      'Only positive values are meaningful: a negative one '
                      'would push requests without PCI devices onto PCI '
                      'hosts. 0.0 turns the weigher off.'),
    cfg.FloatOpt('soft_affinity_weight_multiplier', default=1.0, min=0.0,
                 help='Multiplier of the soft-affinity weigher: how '
                      'strongly a soft-affinity server group prefers hosts '
                      'already running its members. Positive only.'),
    cfg.FloatOpt('soft_anti_affinity_weight_multiplier', default=1.0,
                 min=0.0,
                 help='Multiplier of the soft-anti-affinity weigher: how '
                      'strongly a soft-anti-affinity server group avoids '
                      'hosts already running its members. Positive only.'),
    cfg.FloatOpt('build_failure_weight_multiplier', default=1000000.0,
                 help='Multiplier of the build failure weigher, which '
                      'weighs hosts down by their recent failed builds. '
                      'The large default outweighs every other weigher, '
                      'so a failing host is used only when nothing else '
                      'fits; lower it if user errors make good hosts '
                      'count failures. 0.0 turns it off.'),
    cfg.FloatOpt('cross_cell_move_weight_multiplier', default=1000000.0,
                 help='Multiplier of the cross-cell weigher, which prefers '
                      'hosts in the instance\'s own cell during a move. '
                      'nova_lite has one cell, so this weigher gives every '
                      'host the same weight.'),
    cfg.FloatOpt('hypervisor_version_weight_multiplier', default=1.0,
                 help='Multiplier of the hypervisor version weigher. '
                      'Positive prefers hosts with the newest hypervisor '
                      'version, negative the oldest. Versions of different '
                      'hypervisor types do not compare meaningfully.'),
    cfg.FloatOpt('num_instances_weight_multiplier', default=0.0,
                 help='Multiplier of the instance count weigher. 0.0 (the '
                      'default) turns it off; positive packs instances on '
                      'hosts that have many, negative spreads them to '
                      'hosts that have few.'),
    cfg.FloatOpt('image_props_weight_multiplier', default=0.0,
                 help='Multiplier of the image properties weigher. 0.0 '
                      '(the default) turns it off; positive prefers hosts '
                      'whose instances run images with the same '
                      'properties as the request\'s image (packing), '
                      'negative prefers hosts that have none (spreading).'),
    cfg.ListOpt('image_props_weight_setting', default=[],
                help='Image properties the image properties weigher '
                     'counts and their ratios, as "name=ratio" items, e.g. '
                     '"os_distro=10, os_secure_boot=1, '
                     'os_require_quiesce=0". Empty (the default) counts '
                     'every property once; otherwise properties not listed '
                     'are not counted.'),
    cfg.IntOpt('max_io_ops_per_host', default=8, min=0,
               help='IoOpsFilter rejects hosts with this many I/O-heavy '
                    'operations (builds, resizes, migrations, snapshots, '
                    'backups, rescues, unshelves) in progress. '
                    'AggregateIoOpsFilter takes the smallest aggregate '
                    'metadata max_io_ops_per_host instead, when set.'),
    cfg.IntOpt('max_instances_per_host', default=50, min=1,
               help='NumInstancesFilter rejects hosts already running '
                    'this many instances. AggregateNumInstancesFilter '
                    'takes the smallest aggregate metadata '
                    'max_instances_per_host instead, when set.'),
    cfg.ListOpt('isolated_images', default=[],
                help='Image uuids IsolatedHostsFilter keeps on '
                     'isolated_hosts.'),
    cfg.ListOpt('isolated_hosts', default=[],
                help='Host names that IsolatedHostsFilter reserves for '
                     'isolated_images.'),
    cfg.BoolOpt('restrict_isolated_hosts_to_isolated_images', default=True,
                help='With IsolatedHostsFilter: true lets isolated hosts '
                     'run only isolated images (so no volume-backed '
                     'servers either); false lets them run any image, '
                     'while isolated images still run only on them.'),
    cfg.StrOpt('aggregate_image_properties_isolation_namespace',
               help='When set, AggregateImagePropertiesIsolation '
                    'considers only aggregate metadata keys starting with '
                    'this namespace and the separator; unset considers '
                    'every key.'),
    cfg.StrOpt('aggregate_image_properties_isolation_separator',
               default='.',
               help='Separator between the namespace and the property '
                    'name in keys AggregateImagePropertiesIsolation '
                    'reads.'),
    cfg.StrOpt('image_properties_default_architecture',
               choices=ARCHITECTURES,
               help='The architecture ImagePropertiesFilter assumes for an '
                    'image that names none (no hw_architecture property, '
                    'or no image at all), so that in a cloud of several '
                    'architectures such an image does not land on a host '
                    'that cannot run it. Unset: such an image runs on any '
                    'architecture.'),
    cfg.IntOpt('host_subset_size', default=1, min=1,
               help='Pick the host at random among this many best-weighed '
                    'hosts, to lower collisions between schedulers.'),
    cfg.BoolOpt('shuffle_best_same_weighed_hosts', default=False,
                help='Shuffle the hosts that share the best weight, so '
                     'equal hosts share the load.'),
]


def register_opts(conf):
    conf.register_group(scheduler_group)
    conf.register_opts(scheduler_opts, group=scheduler_group)
    conf.register_group(filter_group)
    conf.register_opts(filter_opts, group=filter_group)


def list_opts():
    return {scheduler_group: scheduler_opts, filter_group: filter_opts}
