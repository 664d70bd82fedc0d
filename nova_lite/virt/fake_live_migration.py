"""The fake driver's live migration, as a mixin of ``FakeDriver``.

The VM keeps running on the source until ``live_migration`` ends: the
destination's ``pre_live_migration`` only prepares an incoming record,
which ``post_live_migration_at_destination`` turns into the running VM
(``rollback_live_migration_at_destination`` drops it). Each step waits
its ``[fake_driver] operation_delays`` entry and fails where
``fail_operations`` names it with the node it runs on (the source node
for ``live_migration``, the destination node for the others).

``live_migration`` waits its delay as a job that
``live_migration_abort`` cancels (LiveMigrationAborted, the VM stays on
the source) and ``live_migration_force_complete`` ends at once, as a
hypervisor's memory copy would be.
"""

import dataclasses
import threading

from oslo_log import log as logging

from nova_lite import exception
from nova_lite.virt import fake_moves

LOG = logging.getLogger(__name__)

LIVE_MIGRATION_OPERATIONS = (
    'check_can_live_migrate_destination', 'pre_live_migration',
    'live_migration', 'post_live_migration_at_destination',
    'rollback_live_migration_at_destination')


class _Job:
    """A live migration running on this source: ``outcome`` is None
    while it copies, then 'aborted' or 'forced'."""

    def __init__(self):
        self.wakeup = threading.Event()
        self.outcome = None


class LiveMigrationMixin:
    """Needs the FakeDriver's ``_lock``, ``_instances``, ``_failing``,
    ``node`` and ``_new_record(instance, flavor, nodename)``, and the
    moves mixin's ``_inject``."""

    def _live_state(self):
        if not hasattr(self, '_incoming'):
            self._incoming = {}   # uuid -> record prepared on this host
            self._jobs = {}       # uuid -> _Job of a running migration
        return self._incoming, self._jobs

    # Destination

    def check_can_live_migrate_destination(self, context, instance,
                                           nodename, block_migration):
        self.node(nodename)
        self._inject('check_can_live_migrate_destination', instance,
                     nodename)
        # No shared storage between fake hosts: "auto" means a block
        # migration, as a hypervisor would decide.
        return {'block_migration': (True if block_migration is None
                                    else bool(block_migration)),
                'dest_node': nodename}

    def pre_live_migration(self, context, instance, nodename,
                           migrate_data):
        self.node(nodename)
        self._inject('pre_live_migration', instance, nodename)
        incoming, _jobs = self._live_state()
        with self._lock:
            incoming[instance.uuid] = self._new_record(
                instance, instance.flavor, nodename)

    def post_live_migration_at_destination(self, context, instance,
                                           nodename):
        self._inject('post_live_migration_at_destination', instance,
                     nodename)
        incoming, _jobs = self._live_state()
        with self._lock:
            record = incoming.pop(instance.uuid, None)
            if record is None:
                record = self._new_record(instance, instance.flavor,
                                          nodename)
            self._instances[instance.uuid] = dataclasses.replace(
                record, power_state=instance.power_state)

    def rollback_live_migration_at_destination(self, context, instance,
                                               nodename):
        incoming, _jobs = self._live_state()
        with self._lock:
            incoming.pop(instance.uuid, None)
        self._inject('rollback_live_migration_at_destination', instance,
                     nodename)

    # Source

    def live_migration(self, context, instance, dest_host, migrate_data):
        with self._lock:
            record = self._instances.get(instance.uuid)
        if record is None:
            raise exception.InstanceNotFound(instance_id=instance.uuid)
        _incoming, jobs = self._live_state()
        job = _Job()
        with self._lock:
            jobs[instance.uuid] = job
        try:
            job.wakeup.wait(fake_moves._delay('live_migration'))
            if job.outcome == 'aborted':
                raise exception.LiveMigrationAborted(
                    instance_uuid=instance.uuid)
            # No delay left to wait: fail now if told to.
            if ('live_migration', record.node) in self._failing:
                raise exception.InstanceOperationFailed(
                    operation='live_migration', instance_uuid=instance.uuid,
                    reason='fault injection: [fake_driver] fail_operations '
                           'includes live_migration:%s' % record.node)
        finally:
            with self._lock:
                jobs.pop(instance.uuid, None)
        with self._lock:
            self._instances.pop(instance.uuid, None)
        LOG.debug('Instance %s left node %s for %s (%s)', instance.uuid,
                  record.node, dest_host, job.outcome or 'copied')

    def _signal(self, instance, outcome):
        _incoming, jobs = self._live_state()
        with self._lock:
            job = jobs.get(instance.uuid)
            if job is None or job.outcome is not None:
                return False
            job.outcome = outcome
        job.wakeup.set()
        return True

    def live_migration_abort(self, instance):
        if not self._signal(instance, 'aborted'):
            raise exception.NoActiveLiveMigration(
                instance_uuid=instance.uuid)

    def live_migration_force_complete(self, instance):
        if not self._signal(instance, 'forced'):
            raise exception.NoActiveLiveMigration(
                instance_uuid=instance.uuid)
