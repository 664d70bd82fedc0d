"""Find builds whose cast to a compute was lost, and end them in seconds.

A conductor names the compute it casts ``build_and_run_instance`` to in
the build's owner (``-<host>``, see ``ownership.py``); the compute, as
the cast arrives, tells the conductors (``build_received``), which
marks the build acknowledged (``-``), or, from conductor RPC 1.10, does
so with its first save as the build starts (``build_started``, one cast:
``build_started.py``). A lost ``build_started`` is a lost receipt: the
build is found below, and the compute that runs it drops the cast again
and acknowledges it. A cast lost on its way (its sender
killed right after sending, a broker outage, a compute killed before it
read its queue) leaves the build unacknowledged. Every ``[conductor]
lost_build_check_interval`` seconds each conductor looks for builds cast
more than ``[conductor] lost_cast_grace`` seconds ago and still neither
acknowledged nor started (no host), takes each over (a compare-and-swap
on the owner: one conductor wins) and:

* its compute is up: casts it to the same compute and node again, with
  the allocation the build holds. A compute that already has the build
  (only its receipt was lost) drops the duplicate and acknowledges
  again; one that restarted without it builds it. After ``[conductor]
  lost_cast_retries`` re-casts (counted in the owner) with no receipt,
  the compute is taken for unable to take builds and the build fails as
  below;
* its compute is down (or gone): puts it in ERROR with a fault, and
  releases its allocations and quota. A cast the compute still finds in
  its queue when it returns is refused by the build's state.

Computes older than ``ACK_SERVICE_VERSION`` never acknowledge: their
builds are left to the build timeout.

    lost_casts.settle(context, scheduler_api, compute_api, grace)
"""

from oslo_log import log as logging
from oslo_serialization import jsonutils

from nova_lite.conductor.tasks import build
from nova_lite.conductor.tasks import ownership
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite import objects
from nova_lite.placement import allocations

LOG = logging.getLogger(__name__)

COMPUTE_BINARY = 'nova-lite-compute'
# The first compute service version that acknowledges its builds.
ACK_SERVICE_VERSION = 2
_DOWN = 'the compute is down (no heartbeat within service_down_time)'
_NO_ALLOCATION = 'the build holds no allocation on that compute'
_NEVER_ACKNOWLEDGED = ('the compute is up but acknowledged none of the %d '
                       're-casts ([conductor] lost_cast_retries)')


def settle(context, scheduler_api, compute_api, grace):
    """Re-cast or fail every lost cast this conductor wins; return
    {uuid: 're-cast' or 'failed'}. Never raises for one build."""
    if not ownership.enabled(context):
        return {}
    casts = ownership.unacknowledged_casts(context, grace)
    if not casts:
        return {}
    computes = {svc.host: svc for svc in objects.ServiceList.get_all(context)
                if svc.binary == COMPUTE_BINARY}
    done = {}
    for uuid, owner in casts:
        host = ownership.cast_target(owner)
        service = computes.get(host)
        if service is not None and service.version < ACK_SERVICE_VERSION:
            continue   # it never acknowledges: the build timeout ends it
        if not ownership.claim_lost(context, uuid, owner):
            continue   # another conductor took it, or it moved on
        up = service is not None and service.is_up
        cast = _Cast(host, up, ownership.recasts(owner), grace)
        LOG.warning('Build of instance %s was cast to compute %s %d s or '
                    'more ago and not acknowledged; %s', uuid, host, grace,
                    cast.plan())
        try:
            done[uuid] = _settle_one(context, uuid, cast, scheduler_api,
                                     compute_api)
        except Exception:
            # The owner is now this process's: the lost build check
            # schedules it again after lost_build_grace.
            LOG.exception('Settling the lost cast of instance %s failed',
                          uuid)
    return done


class _Cast:
    """The lost cast of one build: to ``host`` (``up`` or not), cast
    again ``recasts`` times already."""

    def __init__(self, host, up, recasts, grace):
        self.host = host
        self.up = up
        self.recasts = recasts
        self.grace = grace

    def may_recast(self):
        return self.up and self.recasts < CONF.conductor.lost_cast_retries

    def plan(self):
        if not self.up:
            return 'the compute is down, failing it'
        if not self.may_recast():
            return 'it was cast again %d times already, failing it' % (
                self.recasts)
        return 'casting it again (%d of %d)' % (
            self.recasts + 1, CONF.conductor.lost_cast_retries)

    def failure(self, held):
        """Why the build cannot be cast again (``held``: it holds an
        allocation on that compute)."""
        if not self.up:
            reason = _DOWN
        elif not held:
            reason = _NO_ALLOCATION
        else:
            reason = _NEVER_ACKNOWLEDGED % self.recasts
        return exception.BuildCastLost(host=self.host, grace=self.grace,
                                       reason=reason)


def _settle_one(context, uuid, cast, scheduler_api, compute_api):
    try:
        instance = objects.Instance.get_by_uuid(context, uuid)
    except exception.InstanceNotFound:
        return 'deleted'
    task = build.BuildTask(context, [instance], None, None, scheduler_api,
                           compute_api, redrive=True)
    selection = _selection(context, uuid, cast.host) if cast.up else None
    if selection is None or not cast.may_recast():
        task._fail(instance, cast.failure(selection is not None),
                   release=True)
        return 'failed'
    spec = objects.RequestSpec.get_by_instance_uuid(context, uuid)
    task.request_spec = spec
    task.tracked = {uuid}
    task._cast(instance, [selection])
    ownership.count_recast(context, uuid, cast.host, cast.recasts + 1)
    return 're-cast'


def _selection(context, uuid, host):
    """A Selection of the node of ``host`` that the build of ``uuid``
    holds its allocation on; None if it holds none there."""
    for provider, resources in allocations.get_for_consumer(
            context, uuid).items():
        try:
            node = objects.ComputeNode.get_by_uuid(context, provider)
        except exception.ComputeNodeNotFound:
            continue
        if node.host != host:
            continue
        request = {'allocations': {provider: {'resources': resources}}}
        return objects.Selection(
            service_host=host, nodename=node.hypervisor_hostname,
            compute_node_uuid=provider,
            allocation_request=jsonutils.dumps(request),
            allocation_request_version='1.0', availability_zone=None)
    return None
