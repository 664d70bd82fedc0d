"""Options of the conductor."""

from oslo_config import cfg

conductor_group = cfg.OptGroup('conductor', title='Conductor options')

conductor_opts = [
    cfg.IntOpt('build_timeout', mutable=True,
               default=600, min=1,
               help='Seconds an instance may stay in BUILD, counted from '
                    'its creation. A conductor periodic task puts older '
                    'building instances into ERROR with a fault, releases '
                    'their allocations, and so no build hangs forever.'),
    cfg.IntOpt('build_timeout_check_interval', mutable=True,
               default=60, min=1,
               help='Seconds between runs of the build timeout check '
                    '(which also runs the task timeout check).'),
    cfg.IntOpt('select_destinations_retries', mutable=True,
               default=2, min=0,
               help='Times the conductor asks the scheduler again when a '
                    'build\'s select_destinations call got no answer '
                    'within select_destinations_timeout (its reply was '
                    'lost, or the scheduler died and came back), after '
                    'releasing any allocation the unanswered call may '
                    'have claimed. 0 fails the build at the first '
                    'timeout.'),
    cfg.IntOpt('select_destinations_timeout', mutable=True,
               default=10, min=1,
               help='Seconds the conductor waits for the scheduler\'s '
                    'answer to a build\'s select_destinations call before '
                    'asking again (see select_destinations_retries). A '
                    'decision takes milliseconds; a call that waits '
                    'longer was lost with a scheduler that died, and a '
                    'short wait lets the build go on within seconds of '
                    'a scheduler coming back. Raise it only for '
                    'requests of thousands of servers at once on a '
                    'very large fleet. Moves wait rpc_response_timeout.'),
    cfg.IntOpt('task_timeout', mutable=True,
               default=600, min=1,
               help='Seconds a server may stay in the task_state of a '
                    'server action (rebooting, powering-off, pausing, '
                    '...; nova_lite.conductor.tasks.timeouts.'
                    'ACTION_TASK_STATES), counted from its last update. '
                    'A conductor periodic task then clears the task '
                    'state, keeps the vm_state and records a fault: a '
                    'compute that died mid-operation leaves no server '
                    'stuck. A move (resize_prep, resize_migrating, ...) '
                    'is undone if no compute touched the VM yet, else '
                    'the server goes to ERROR (conductor.tasks.'
                    'move_timeouts). A server whose compute (either '
                    'compute of a move) is down is settled so at once, '
                    'without waiting for this timeout.'),
    cfg.IntOpt('lost_build_check_interval', mutable=True,
               default=5, min=1,
               help='Seconds between runs of the lost build check (it '
                    'also runs as a conductor starts). A build in '
                    'scheduling with no host belongs to the conductor '
                    'process that took its build_instances cast; when '
                    'that process is gone (a process of this host that '
                    'no longer runs, or a conductor of another host seen '
                    'down for service_down_time), one surviving or '
                    'restarted conductor takes the build over, releases '
                    'any allocation left from its scheduling and '
                    'schedules it again, so it ends ACTIVE or in ERROR '
                    'within seconds instead of after build_timeout. No '
                    'build is re-driven while a conductor older than '
                    'this release runs. Conductors that share a host '
                    'value must run on the same machine: they judge '
                    'each other\'s processes by pid.'),
    cfg.IntOpt('lost_build_grace', mutable=True,
               default=30, min=1,
               help='Seconds a conductor waits for the build_instances '
                    'cast of a build it provisioned itself before taking '
                    'that cast for lost (a message lost on the bus) and '
                    'scheduling the build again. A cast that still '
                    'arrives later finds the build taken and is '
                    'dropped.'),
    cfg.IntOpt('lost_cast_grace', mutable=True,
               default=5, min=1,
               help='Seconds a conductor waits for a compute to acknowledge '
                    'a build cast to it (the compute does as the cast '
                    'arrives) before taking the cast for lost: the build '
                    'is then cast again to the same compute and node if '
                    'that compute is up (a compute that has the build '
                    'already drops the duplicate), or put in ERROR with a '
                    'fault if it is down. Checked every '
                    'lost_build_check_interval seconds. Too short only '
                    'costs duplicate casts. See lost_cast_retries.'),
    cfg.IntOpt('lost_cast_retries', mutable=True,
               default=3, min=0,
               help='Times a conductor casts a build again to a compute '
                    'that is up but has not acknowledged it within '
                    'lost_cast_grace (a compute whose consumer is stuck '
                    'keeps its heartbeat). One more unacknowledged cast '
                    'puts the build in ERROR with a fault saying so, and '
                    'releases its allocations and quota, about (retries '
                    '+ 1) x (lost_cast_grace + lost_build_check_interval) '
                    'seconds after the first cast instead of at '
                    'build_timeout. 0 fails a build at its first '
                    'unacknowledged cast.'),
    cfg.IntOpt('delete_resend_after', mutable=True,
               default=5, min=1,
               help='Seconds a server may stay deleting before a '
                    'conductor sends its delete again (checked every '
                    'lost_build_check_interval seconds): to its compute '
                    'if that is up, else by deleting its records itself. '
                    'A delete whose cast the bus refused, or whose API '
                    'was killed before it cast, so ends within seconds '
                    'instead of waiting for its owner to delete it '
                    'again. Too short only costs duplicate deletes, '
                    'which a compute ignores. The API also sends a '
                    'repeated DELETE of such a server again.'),
    cfg.IntOpt('action_resend_after', mutable=True,
               default=5, min=1,
               help='Seconds a server may stay in the task state of a '
                    'power action (rebooting, powering-off, ...) that no '
                    'compute started before a conductor (checking every '
                    'lost_build_check_interval seconds) sends the action '
                    'to its compute again: its cast was lost (the bus '
                    'refused it and the API answered 503, or the API was '
                    'killed before it cast). A compute runs a request '
                    'once, however often it gets it, so too short only '
                    'costs repeated casts to a busy compute. A move '
                    'step cast to a compute that did not start it '
                    '(prep_resize, resize_instance, finish_resize) is '
                    'cast again the same way. A resize or '
                    'migration still in resize_prep with no migration '
                    'record after three times as long never reached a '
                    'conductor and is ended with a fault. A confirmResize '
                    'or revertResize whose migration has been confirming '
                    'or reverting this long, with nothing recorded on its '
                    'action, is run by the conductor that finds it.'),
    cfg.IntOpt('max_pending_builds', mutable=True,
               default=16, min=0,
               help='Servers one conductor process may have accepted for '
                    'building and not yet cast to a compute. A server '
                    'create beyond that waits, after its records and quota '
                    'are written and before it is answered, until builds '
                    'leave (in the order the creates arrived), so that '
                    'creates sent faster than servers can be built slow '
                    'down to the pace of the builds instead of queueing '
                    'inside the conductor, where every server waits '
                    'longer for ACTIVE. Counted by each conductor worker '
                    'for itself. A request for more servers than this '
                    'waits until the process has none pending. '
                    'Reschedules and re-driven builds never wait. 0 '
                    'admits every create at once.'),
    cfg.FloatOpt('build_admission_timeout', mutable=True,
                 default=5, min=0,
                 help='Seconds a server create waits for max_pending_builds '
                      'before it is admitted anyway (its servers exist '
                      'already; they are built after those ahead of them). '
                      'While waiting the create holds one of the '
                      'conductor\'s RPC threads (executor_thread_pool_size). '
                      'Keep it well under the API\'s [api] '
                      'provision_attempt_timeout, after which the API sends '
                      'the create again.'),
    cfg.IntOpt('workers',
               default=1, min=1,
               help='Conductor worker processes, forked once the '
                    'configuration is loaded; each has its own database '
                    'pool and RPC connection and consumes the conductor '
                    'topic, so the busiest service can use more than one '
                    'core (its threads share one interpreter lock). The '
                    'service tells systemd it is ready once every worker '
                    'consumes, and SIGTERM stops them all. Periodic tasks '
                    'run in every worker. Up to the number of cores is '
                    'useful.'),
]


def register_opts(conf):
    conf.register_group(conductor_group)
    conf.register_opts(conductor_opts, group=conductor_group)


def list_opts():
    return {conductor_group: conductor_opts}
