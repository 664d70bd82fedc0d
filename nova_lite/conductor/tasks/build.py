"""The build workflow: schedule, cast to the compute, reschedule, give up.

A fresh request asks the scheduler for a claimed host and alternates per
instance and casts each build to its host. A compute whose build failed
hands the instance back with the alternates it did not use; the conductor
moves the allocation to the next alternate that still has room (one
transaction: the instance never holds two hosts, nor none while it still
has a chance) and casts again. When the alternates run out the instance
goes to ERROR with a fault naming every host that failed and why, and its
allocations are released.
"""

import re

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.conductor.tasks import alternates
from nova_lite.conductor.tasks import ownership
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.placement import allocations

LOG = logging.getLogger(__name__)


class BuildTask:
    """Build ``instances`` of one request; see the module docstring."""

    def __init__(self, context, instances, request_spec, host_lists,
                 scheduler_api, compute_api, redrive=False, provisioned=None):
        self.context = context
        self.instances = list(instances)
        self.request_spec = request_spec
        self.host_lists = host_lists
        self.scheduler_api = scheduler_api
        self.compute_api = compute_api
        # A lost build this conductor re-drives (it owns it already).
        self.redrive = redrive
        # Built by the process that provisioned it (conductor RPC 1.5):
        # whether its records name this process as the owner. None for a
        # build_instances cast, which has to take ownership.
        self.provisioned = provisioned
        self.tracked = set()   # uuids whose owner is this process

    def execute(self):
        with ownership.working(i.uuid for i in self.instances):
            self._take_ownership()
            if self.host_lists is None:
                if self.instances:
                    self._schedule_and_build()
            else:
                for instance, host_list in zip(self.instances,
                                                 self.host_lists,
                                                 strict=True):
                    self._reschedule(instance, host_list)

    def _take_ownership(self):
        """Become the owner of the builds in this message (see
        conductor/tasks/ownership.py); drop from a fresh request those a
        conductor re-drove or handed to a compute already."""
        uuids = [instance.uuid for instance in self.instances]
        if self.redrive:
            self.tracked = set(uuids)
            return
        if self.provisioned is not None:
            # Named owner in the provision transaction, or not tracked.
            self.tracked = set(uuids) if self.provisioned else set()
            return
        if not ownership.enabled(self.context):
            return
        if self.host_lists is not None:
            self.tracked = {uuid for uuid in uuids
                            if ownership.take_handed_back(self.context,
                                                          uuid)}
            return
        keep = []
        for instance in self.instances:
            taken = ownership.take_fresh(self.context, instance.uuid)
            if taken is False:
                LOG.info('Build of %s was re-driven or handed to a compute '
                         'already; dropping this late cast', instance.uuid)
                continue
            if taken is True:
                self.tracked.add(instance.uuid)
            keep.append(instance)
        self.instances = keep

    def _load_server_group(self):
        """Fill the request's server group with its current members and
        their hosts, which the server group filters and weighers read."""
        spec = self.request_spec
        group = (spec.instance_group
                 if spec.obj_attr_is_set('instance_group') else None)
        if group is None:
            return
        group._context = self.context
        try:
            group.load_for_scheduling()
        except exception.InstanceGroupNotFound:
            LOG.info('Server group %s was deleted; scheduling %s without '
                     'it', group.uuid, [i.uuid for i in self.instances])
            spec.instance_group = None

    def _schedule_and_build(self):
        uuids = [instance.uuid for instance in self.instances]
        LOG.debug('Scheduling %s%s', ', '.join(uuids),
                  ' (re-driven)' if self.redrive else '')
        self._load_server_group()
        try:
            host_lists = self._select_destinations(uuids)
        except exception.NoValidHost as exc:
            self._fail_all(exc, release=False)
            return
        except messaging.MessagingTimeout as exc:
            LOG.error('Scheduler did not answer for %s: %s', uuids, exc)
            self._fail_all(exception.NoValidHost(
                reason='the scheduler did not answer in time'), release=True)
            return
        except Exception as exc:
            LOG.exception('Scheduling %s failed', uuids)
            self._fail_all(exc, release=True)
            return
        for instance, host_list in zip(self.instances, host_lists,
                                       strict=True):
            self._cast(instance, host_list)

    def _select_destinations(self, uuids):
        """The scheduler's host lists for ``uuids``, asked again (up to
        [conductor] select_destinations_retries times) when a call gets
        no answer. Raises the last MessagingTimeout when none came.

        An unanswered call may have claimed all the same (the reply was
        lost, or the scheduler died after its claim): those allocations
        are removed before asking again, and after a retried answer every
        instance is made to hold exactly what was selected for it.
        """
        retries = CONF.conductor.select_destinations_retries
        for attempt in range(retries + 1):
            try:
                host_lists = self.scheduler_api.select_destinations(
                    self.context, self.request_spec, uuids,
                    return_alternates=True,
                    timeout=CONF.conductor.select_destinations_timeout)
            except messaging.MessagingTimeout as exc:
                self._release_claims(uuids)
                if attempt == retries:
                    raise
                LOG.warning('Scheduler did not answer for %s (%s); asking '
                            'again (%d of %d)', uuids, exc, attempt + 1,
                            retries)
                continue
            if attempt or self.redrive:
                # A re-driven build's dead conductor may have had a claim
                # in flight too.
                self._keep_only_selected(host_lists)
            return host_lists

    def _release_claims(self, uuids):
        for uuid in uuids:
            allocations.remove(self.context, uuid)

    def _keep_only_selected(self, host_lists):
        """A late claim of an unanswered call may have landed after the
        release: move each instance back to exactly its selection."""
        for instance, host_list in zip(self.instances, host_lists,
                                       strict=True):
            wanted = host_list[0].allocations
            held = allocations.get_for_consumer(self.context, instance.uuid)
            if held == wanted:
                continue
            LOG.warning('Instance %s held %s besides its selection; '
                        'keeping only %s', instance.uuid, held, wanted)
            released, claimed = allocations.replace(
                self.context, instance.uuid, instance.project_id,
                instance.user_id, wanted)

    def _cast(self, instance, host_list):
        selection = host_list[0]
        spec = self.request_spec.for_compute(instance.uuid)
        # The compute hands this spec back on failure, so the hosts tried
        # accumulate across reschedules.
        spec.record_attempt(selection.service_host, selection.nodename)
        if (instance.uuid in self.tracked and
                not ownership.hand_off(self.context, instance.uuid,
                                       selection.service_host)):
            LOG.warning('Build of %s was re-driven by another conductor '
                        'meanwhile; not casting it', instance.uuid)
            return
        LOG.debug('Building %s on %s (%s), %d alternates', instance.uuid,
                  selection.service_host, selection.nodename,
                  len(host_list) - 1)
        self.compute_api.build_and_run_instance(
            self.context, instance, selection.service_host,
            selection.nodename, spec, host_list)

    def _reschedule(self, instance, host_list):
        rest = alternates.claim_first(self.context,
                                      instance, host_list, 'the build')
        if rest is None:
            self._fail(instance, exception.MaxRetriesExceeded(
                reason=self._failure_history(instance)), release=True)
            return
        LOG.info('Rescheduling %s to %s (%s)', instance.uuid,
                 rest[0].service_host, rest[0].nodename)
        self._cast(instance, rest)

    def _failure_history(self, instance):
        """Where the build failed and why, hosts first.

        A fault message keeps 255 characters and one attempt's error
        alone can take half of that, so the hosts tried come first and
        always fit; the errors follow (the fault's details keep them all).
        """
        faults = objects.InstanceFault.get_all_for_instance(self.context,
                                                            instance.uuid)
        attempts = [_attempt(instance.uuid, fault) for fault in faults]
        if not attempts:
            return 'Exhausted all hosts available for this build.'
        return 'Build failed on %s. %s' % (
            ', '.join(where for where, _why in attempts),
            '; '.join('%s: %s' % attempt for attempt in attempts))

    def _fail_all(self, exc, release):
        for instance in self.instances:
            self._fail(instance, exc, release)

    def _fail(self, instance, exc, release):
        """Put ``instance`` in ERROR with a fault; free what it held.

        An instance the user deleted meanwhile is left to the delete.
        The fault is written first, so that nobody sees the server in
        ERROR with an earlier attempt's fault as its latest.
        """
        objects.InstanceFault.from_exception(self.context, instance.uuid,
                                             exc).create()
        instance.vm_state = fields.VMState.ERROR
        instance.task_state = None
        try:
            instance.save(expected_task_state=[fields.TaskState.SCHEDULING,
                                               fields.TaskState.SPAWNING])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError):
            LOG.info('Instance %s was deleted while building', instance.uuid)
        else:
            # A server that will never run holds no quota (the mark on its
            # row keeps its later delete from releasing it again).
            instance.release_quota()
            LOG.warning('Instance %s failed to build: %s', instance.uuid,
                        _message(exc))
        if release:
            allocations.remove(self.context, instance.uuid)


# The message of a compute's fault for one failed attempt
# (exception.BuildFailedOnHost).
_ATTEMPT = re.compile(r'Build of instance \S+ failed on host (?P<host>\S+) '
                      r'node (?P<node>\S+): (?P<reason>.*)', re.DOTALL)


def _attempt(instance_uuid, fault):
    """(where, why) of one failed attempt, from its fault, without the
    instance's own uuid (the fault is the instance's: it says nothing)."""
    match = _ATTEMPT.match(fault.message)
    if match is None:
        return fault.host or '?', fault.message
    reason = match['reason'].replace(' ' + instance_uuid, '')
    return '%s (%s)' % (match['host'], match['node']), reason


def _message(exc):
    return exc.format_message() if hasattr(exc, 'format_message') else exc
