"""Options of the compute service and its resource tracker.

The allocation ratio and reserved options follow Nova: ``*_allocation_ratio``
forces a ratio on every report, ``initial_*_allocation_ratio`` is only the
value a new provider starts with (an administrator may change it later).
"""

from oslo_config import cfg

compute_opts = [
    cfg.StrOpt('compute_driver',
               default='fake.FakeDriver',
               help='Virt driver of nova-lite-compute, as a class path '
                    'below nova_lite.virt (for example "fake.FakeDriver") '
                    'or a full dotted class path.'),
    cfg.IntOpt('update_resources_interval',
               default=60, min=1,
               help='Seconds between resource tracker runs: the compute '
                    'recounts its nodes and reports inventory and traits '
                    'through the conductor. Reports also happen at start.'),
    cfg.IntOpt('max_concurrent_builds',
               default=10, min=1,
               help='Builds one compute service runs at once; further '
                    'requests wait in order for a slot. Deletes never '
                    'wait behind builds.'),
    cfg.IntOpt('build_outcome_retries', mutable=True,
               default=5, min=1,
               help='When a save of a build (spawning, ACTIVE, or back to '
                    'scheduling) gets no answer within '
                    'build_save_attempt_timeout (a conductor killed while '
                    'it held the call, a stalled database, a lost reply), '
                    'the compute reads the instance again through the '
                    'conductor, up to this many times a second apart, and '
                    'saves again only if it is still in the task state '
                    'the save expects: a committed save is kept, anything '
                    'else undoes the build. If no read is answered after '
                    'the VM was spawned, the VM and its claim are kept '
                    'and the conductor\'s build timeout settles the '
                    'instance: a VM is never destroyed while its ACTIVE '
                    'state may have been committed.'),
    cfg.IntOpt('build_save_attempt_timeout', mutable=True,
               default=5, min=1,
               help='Seconds each attempt at a build\'s save through the '
                    'conductor, and each read that follows an unanswered '
                    'one, waits for its answer (at most '
                    'rpc_response_timeout). Short, so that a conductor '
                    'killed while it held the call costs the build '
                    'seconds: the next attempt reaches another conductor, '
                    'or the same one restarted. Too short only costs '
                    'reads and conditional saves sent again.'),
    cfg.StrOpt('instance_name_template',
               default='instance-%08x',
               help='Template of an instance\'s internal name, formatted '
                    'with its database id.'),
    cfg.StrOpt('multi_instance_display_name_template',
               default='%(name)s-%(count)d',
               help='Display name of each server when one request boots '
                    'several: %(name)s is the requested name, %(count)d '
                    'its 1-based index and %(uuid)s its uuid.'),
]

numa_opts = [
    cfg.BoolOpt('packing_host_numa_cells_allocation_strategy',
                default=False,
                help='How the scheduler orders a host\'s NUMA cells '
                     'before fitting a guest on them (Nova\'s [compute] '
                     'option of this name): False spreads guests (cells '
                     'with more free memory, then fewer used shared CPUs '
                     'or more free dedicated CPUs, first); True packs them '
                     '(the most used cells first). Either way, a request '
                     'with PCI devices tries the cells with more free '
                     'devices first, and one without tries them last.'),
]

allocation_ratio_opts = [
    cfg.FloatOpt('cpu_allocation_ratio', min=0.0,
                 help='VCPU overcommit ratio forced on every report, '
                      'overriding a ratio set through placement. Unset '
                      '(or 0.0) means initial_cpu_allocation_ratio for '
                      'new providers and leaves existing ones alone.'),
    cfg.FloatOpt('ram_allocation_ratio', min=0.0,
                 help='MEMORY_MB overcommit ratio forced on every report. '
                      'Unset (or 0.0) means initial_ram_allocation_ratio '
                      'for new providers and leaves existing ones alone.'),
    cfg.FloatOpt('disk_allocation_ratio', min=0.0,
                 help='DISK_GB overcommit ratio forced on every report. '
                      'Unset (or 0.0) means initial_disk_allocation_ratio '
                      'for new providers and leaves existing ones alone.'),
    cfg.FloatOpt('initial_cpu_allocation_ratio', default=4.0, min=0.0,
                 help='VCPU ratio of a new provider when '
                      'cpu_allocation_ratio is unset.'),
    cfg.FloatOpt('initial_ram_allocation_ratio', default=1.0, min=0.0,
                 help='MEMORY_MB ratio of a new provider when '
                      'ram_allocation_ratio is unset.'),
    cfg.FloatOpt('initial_disk_allocation_ratio', default=1.0, min=0.0,
                 help='DISK_GB ratio of a new provider when '
                      'disk_allocation_ratio is unset.'),
]

reserved_opts = [
    cfg.IntOpt('reserved_host_cpus', default=0, min=0,
               help='VCPUs of every node kept for the host: reported as '
                    'the VCPU inventory\'s reserved amount.'),
    cfg.IntOpt('reserved_host_memory_mb', default=512, min=0,
               help='MiB of RAM of every node kept for the host: '
                    'reported as the MEMORY_MB inventory\'s reserved '
                    'amount and counted as used on the compute node.'),
    cfg.IntOpt('reserved_host_disk_mb', default=0, min=0,
               help='MiB of disk of every node kept for the host; reported '
                    'as whole GiB, rounded up.'),
]

# Resize, cold and live migration (Nova's [DEFAULT] names).
migration_opts = [
    cfg.BoolOpt('allow_resize_to_same_host', default=False,
                help='Let the scheduler choose the server\'s current host '
                     'for a resize (it is excluded otherwise). Cold '
                     'migrations always leave the host.'),
    cfg.IntOpt('resize_confirm_window', default=0, min=0,
               help='Seconds after which a resize or cold migration '
                    'waiting in VERIFY_RESIZE is confirmed by the '
                    'conductor on its own; 0 never confirms on its own. '
                    'Checked every [conductor] '
                    'build_timeout_check_interval seconds.'),
    cfg.IntOpt('migrate_max_retries', default=-1, min=-1,
               help='Times a live migration asks the scheduler for '
                    'another destination after the chosen one refused it '
                    '(check_can_live_migrate_destination); -1 retries '
                    'until no host is left, 0 never retries. A host named '
                    'by the administrator is never retried.'),
]

# Shelving (Nova's [DEFAULT] names).
shelve_opts = [
    cfg.IntOpt('shelved_offload_time', default=0, min=-1,
               help='Seconds a shelved server keeps its host before it is '
                    'offloaded (its VM removed, its host\'s allocations '
                    'freed; the server and its quota stay). 0 offloads at '
                    'once, as part of the shelve; -1 never offloads on its '
                    'own (shelveOffload still does). A positive value is '
                    'checked every shelved_poll_interval seconds by each '
                    'compute for its own servers.'),
    cfg.IntOpt('shelved_poll_interval', default=3600, min=-1,
               help='Seconds between a compute\'s checks for shelved '
                    'servers due to be offloaded (see shelved_offload_time); '
                    '0 or -1 disable the check.'),
]


def register_opts(conf):
    conf.register_opts(compute_opts)
    conf.register_opts(migration_opts)
    conf.register_opts(shelve_opts)
    conf.register_opts(allocation_ratio_opts)
    conf.register_opts(numa_opts)
    conf.register_opts(reserved_opts)


def list_opts():
    return {'DEFAULT': (compute_opts + migration_opts + shelve_opts
                        + allocation_ratio_opts + reserved_opts + numa_opts)}
