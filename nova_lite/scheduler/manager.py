"""The scheduler's RPC endpoint (see ``rpcapi.py`` for the contract).

Thin: it holds the host manager and the scheduling core, serialises
decisions, and delegates.
"""

import functools

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_service import periodic_task

from nova_lite.conf import CONF
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import manager
from nova_lite.scheduler import claims
from nova_lite.scheduler import filter_scheduler
from nova_lite.scheduler import host_manager as host_manager_mod
from nova_lite.scheduler import request_filter
from nova_lite.scheduler import rpcapi

LOG = logging.getLogger(__name__)

_CATCH_UP_TASK = '_catch_up_host_states'
_SERVICES_TASK = '_sync_services'


class SchedulerManager(manager.Manager):
    """Chooses and claims hosts (``select_destinations``) and keeps its
    host states current (``update_provider_states``, periodic catch-up).

    Loading the filters and weighers at construction makes a bad
    ``[filter_scheduler]`` setting stop the service at start
    (SchedulerHostFilterNotFound, SchedulerWeigherNotFound).
    """

    target = messaging.Target(version=rpcapi.RPC_VERSION)

    def __init__(self, host=None, host_manager=None, driver=None,
                 claimer_factory=claims.PlacementClaimer):
        super().__init__(host, 'scheduler')
        self.host_manager = host_manager or host_manager_mod.HostManager()
        self.driver = driver or filter_scheduler.FilterScheduler.from_config()
        self.claimer_factory = claimer_factory
        # The decorator's spacing is read when the class is defined, which
        # may be before the configuration is parsed: take it now, on this
        # instance (oslo.service reads self._periodic_spacing).
        self._periodic_spacing = dict(self._periodic_spacing)
        self._periodic_spacing[_CATCH_UP_TASK] = (
            CONF.scheduler.host_state_resync_interval)
        self._periodic_spacing[_SERVICES_TASK] = (
            self.host_manager.service_sync_seconds())

    def post_start_hook(self):
        # Load only once the RPC server consumes: a change notice fanned
        # out before our fanout queue existed would be lost, and a compute
        # reporting just then would stay unknown until the catch-up.
        self._load_host_states()

    def _load_host_states(self):
        try:
            self.host_manager.load_all(nl_context.get_admin_context())
        except Exception:
            # Not fatal: the first request loads them.
            LOG.exception('Loading host states at start failed')

    @messaging.expected_exceptions(exception.NoValidHost)
    def select_destinations(self, context, spec_obj, instance_uuids,
                            return_alternates=True):
        """Per instance uuid, a list of Selections: the claimed host
        first, then alternates (none unless ``return_alternates``).

        Raises NoValidHost explaining each step's effect.
        """
        claimer = self.claimer_factory(context)
        refresh = functools.partial(self._refresh_host, context)
        # Reads first, without the lock: another thread's decision need
        # not wait for them.
        host_states = self.host_manager.get_population(context)
        # Then one decision at a time per process: each sees the claims of
        # the one before it in memory, and RPC threads never race on a
        # host. The lock covers the in-memory decision and the claims.
        with self.host_manager.lock:
            prefilters = request_filter.process_reqspec(
                spec_obj, self.host_manager.aggregates())
            return self.driver.select_destinations(
                spec_obj, host_states, instance_uuids, claimer,
                refresh_host=refresh, return_alternates=return_alternates,
                prefilters=prefilters)

    def _refresh_host(self, context, host_state):
        self.host_manager.refresh(context, [host_state.uuid])

    def update_provider_states(self, context, provider_uuids,
                               aggregate_uuids=None, generations=None,
                               instance_states=None):
        """Note that these providers (and host aggregates) changed (fanout
        cast, no reply). A 1.0 sender lists aggregates among the providers;
        HostManager.refresh re-reads a uuid that is no compute node as an
        aggregate either way. ``generations`` (1.2): {uuid: generation}
        of the providers whose new generation the writer knew.
        ``instance_states`` (1.3): {node uuid: {instance uuid: (vm_state,
        task_state, stamp)}} of instances saved in a new state, applied
        to those nodes' states without re-reading them.
        """
        self.host_manager.mark_dirty(
            list(provider_uuids) + list(aggregate_uuids or ()),
            generations)
        if instance_states:
            self.host_manager.note_instance_states(instance_states)

    @periodic_task.periodic_task(spacing=5, run_immediately=False)
    def _sync_services(self, context):
        """Apply the compute services' changes (up, down, disabled), off
        the decision path."""
        self.host_manager.sync_services(context)

    @periodic_task.periodic_task(spacing=60, run_immediately=False)
    def _catch_up_host_states(self, context):
        """Re-read the hosts that changed with no notice reaching us (a
        lost message): compared by generation, off the decision path.
        Bounds how long a missed notice leaves a host stale."""
        self.host_manager.catch_up(context)
