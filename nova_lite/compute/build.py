"""A compute's builds: queued in a pool, run under the instance's lock,
claimed, spawned and saved ACTIVE, or handed back to the conductor with
the alternates (``ComputeManager.build_and_run_instance`` routes here).

The scheduler chose the node and claimed its allocation; the conductor
runs the workflow and its reschedules. Every save goes through objects
(``build_outcome``), the build's receipt through ``build_receipts``.
"""

import concurrent.futures
import time
import traceback

from oslo_log import log as logging

from nova_lite.compute import build_outcome
from nova_lite.compute import build_receipts
from nova_lite.compute import power
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields

LOG = logging.getLogger(__name__)

# The instance was deleted while we worked on it: stop without a fault.
_GONE = (exception.InstanceNotFound, exception.UnexpectedTaskStateError)


class Builds:
    """The builds of one compute host.

    They run in a pool of [DEFAULT] max_concurrent_builds threads, so a
    burst of builds never starves the RPC server of threads for deletes.
    """

    def __init__(self, host, driver, rt, instance_locks, conductor_api):
        self.host = host
        self.driver = driver
        self.rt = rt
        self._instance_locks = instance_locks
        self._conductor_api = conductor_api
        self._receipts = build_receipts.Receipts()
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=CONF.max_concurrent_builds,
            thread_name_prefix='build')

    @property
    def conductor_api(self):
        return self._conductor_api()

    def shutdown(self):
        """Let the builds already accepted finish."""
        self._pool.shutdown(wait=True)

    def queue(self, context, instance, node, request_spec, host_list):
        """Queue the build of ``instance`` on ``node`` (RPC cast).

        A build received here already (queued, running, or built on
        this node) is a duplicate cast and is dropped (compute/
        build_receipts.py); either way the build is acknowledged: now,
        or by its first save if it starts at once (conductor RPC 1.10).
        Returns a Future of the build (RPC callers ignore it; tests wait
        on it).
        """
        combined = False
        if (self.rt.tracks(instance.uuid, node) or
                not self._receipts.open(instance.uuid, node)):
            LOG.info('Build of instance %s on node %s is here already; '
                     'dropping this duplicate cast', instance.uuid, node)
            future = concurrent.futures.Future()
            future.set_result(None)
        else:
            LOG.debug('Build of instance %s on node %s queued',
                      instance.uuid, node)
            # Acknowledged by its first save (RPC 1.10) if it starts now.
            combined = build_receipts.may_combine(
                lambda: self.conductor_api, self._receipts,
                CONF.max_concurrent_builds)
            future = self._pool.submit(
                self._locked, context, instance, node, request_spec,
                host_list, combined)
        if not combined:
            build_receipts.acknowledge(lambda: self.conductor_api, context,
                                       instance.uuid, self.host)
        return future

    def _locked(self, context, instance, node, request_spec, host_list,
                combined=False):
        # The build thread logs with the request's id, as the RPC thread
        # that queued it did: an operator follows one id end to end.
        if context is not None:
            context.update_store()
        with self._instance_locks(instance.uuid):
            try:
                self.run(context, instance, node, request_spec, host_list,
                         combined)
            except Exception:
                # Nothing above us would log it: this runs in a pool.
                LOG.exception('Build of instance %s failed unexpectedly',
                              instance.uuid)
            finally:
                self._receipts.close(instance.uuid, node)

    def run(self, context, instance, node, request_spec, host_list,
            combined=False):
        """Claim, spawn, save ACTIVE; reschedule or stop on failure.
        ``combined``: the first save is sent as the build's receipt
        (compute/build_receipts.py)."""
        started = time.monotonic()
        try:
            claim = self.rt.instance_claim(context, instance, node)
        except Exception as exc:
            # Usually ComputeResourcesUnavailable; a node the driver cannot
            # reach is just as good a reason to try an alternate.
            self._reschedule(context, instance, node, request_spec,
                             host_list, exc)
            return
        spawn_tried = False
        try:
            self._start_spawning(context, instance, node, host_list,
                                 combined)
            spawn_tried = True
            spawn_started = time.monotonic()
            self.driver.spawn(context, instance,
                              image_meta(request_spec), node)
            spawned = time.monotonic()
            build_outcome.save_active(instance, started=not combined)
        except _GONE:
            LOG.info('Instance %s was deleted during its build; stopping',
                     instance.uuid)
            self._abandon(context, instance, claim, spawn_tried)
            return
        except build_outcome.BuildOutcomeUnknown as exc:
            if spawn_tried:
                # Never undo what may be committed ACTIVE: keep the VM
                # and the claim; the conductor's build timeout ends it.
                LOG.error('Instance %s: whether it was saved ACTIVE is '
                          'unknown (%s); keeping its VM for the conductor '
                          'to settle', instance.uuid, exc)
                return
            # No VM yet: give the claim back and hand the build back.
            self._abandon(context, instance, claim, spawn_tried)
            self._reschedule(context, instance, node, request_spec,
                             host_list, exc, fence=combined)
            return
        except Exception as exc:
            self._abandon(context, instance, claim, spawn_tried)
            self._reschedule(context, instance, node, request_spec,
                             host_list, exc, fence=combined)
            return
        LOG.info('Instance %s is active on node %s: spawned in %.2f s, '
                 'built in %.2f s', instance.uuid, node,
                 spawned - spawn_started, time.monotonic() - started)
        self._succeeded(context, instance, node)

    def _start_spawning(self, context, instance, node, host_list,
                        combined):
        instance.host = self.host
        instance.node = node
        if host_list:
            selection = host_list[0]
            instance.compute_node_uuid = selection.compute_node_uuid
            # As in Nova, a server shows the zone of the host it runs on.
            zone = (selection.availability_zone
                    if selection.obj_attr_is_set('availability_zone')
                    else None)
            if zone:
                instance.availability_zone = zone
        instance.task_state = fields.TaskState.SPAWNING
        if combined:
            # Left changed: the final save sends them again.
            build_receipts.started(self.conductor_api, context, instance,
                                   self.host)
        else:
            build_outcome.save(instance, fields.TaskState.SCHEDULING)

    def _succeeded(self, context, instance, node):
        """Bookkeeping after ACTIVE is committed: a failure here must not
        undo the build (the next resource update corrects the counts)."""
        try:
            self.rt.update_usage(context, instance, node)
            self.rt.build_succeeded(node)
        except Exception:
            LOG.exception('Instance %s is ACTIVE, but recording its usage '
                          'on node %s failed', instance.uuid, node)

    def _abandon(self, context, instance, claim, spawn_tried):
        """Undo a build here: remove the VM if one may exist, give the
        claim back."""
        if spawn_tried:
            try:
                self.driver.destroy(context, instance)
            except Exception:
                LOG.exception('Cleaning up instance %s on the driver '
                              'failed', instance.uuid)
        claim.abort()

    def _reschedule(self, context, instance, node, request_spec, host_list,
                    error, fence=False):
        """Record why the build failed here and hand it back (``fence``:
        after its start was sent, see compute/build_receipts.py)."""
        LOG.warning('Build of instance %s on node %s failed: %s',
                    instance.uuid, node, power.message(error))
        if fence:
            build_receipts.fence(self.conductor_api, context, instance.uuid,
                                 self.host, CONF.build_save_attempt_timeout)
        self._record_fault(context, instance, exception.BuildFailedOnHost(
            instance_uuid=instance.uuid, host=self.host, node=node,
            reason=power.message(error)), error)
        instance.host = None
        instance.node = None
        instance.compute_node_uuid = None
        instance.task_state = fields.TaskState.SCHEDULING
        try:
            build_outcome.save(instance, [fields.TaskState.SCHEDULING,
                                          fields.TaskState.SPAWNING])
        except _GONE:
            LOG.info('Instance %s was deleted during its build; not '
                     'rescheduling', instance.uuid)
            return
        except build_outcome.BuildOutcomeUnknown as exc:
            LOG.error('Instance %s: no conductor answered its hand-back '
                      '(%s); leaving it to the conductor\'s build timeout',
                      instance.uuid, exc)
            return
        self.rt.build_failed(node)
        alternates = list(host_list[1:]) if host_list else []
        LOG.info('Handing instance %s back to the conductor with %d '
                 'alternate(s)', instance.uuid, len(alternates))
        self.conductor_api.build_instances(
            context, [instance], request_spec, host_lists=[alternates])

    def _record_fault(self, context, instance, fault_error, cause):
        record_fault(context, self.host, instance, fault_error, cause)


def record_fault(context, host, instance, fault_error, cause):
    """Create an InstanceFault saying ``fault_error``, with the
    traceback of ``cause`` as its details."""
    details = ''.join(traceback.format_exception(cause)).strip()
    try:
        # Not worth rpc_response_timeout of the build's time.
        with conductor_rpcapi.call_timeout(
                CONF.build_save_attempt_timeout):
            objects.InstanceFault.from_exception(
                context, instance.uuid, fault_error, host=host,
                details=details).create()
    except Exception:
        # The reschedule or delete matters more than the record of why.
        LOG.exception('Recording the fault of instance %s failed',
                      instance.uuid)


def image_meta(request_spec):
    """The image of ``request_spec``, or None."""
    if request_spec is not None and request_spec.obj_attr_is_set('image'):
        return request_spec.image
    return None

