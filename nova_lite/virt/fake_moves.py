"""The fake driver's moves (resize, cold migration), as a mixin of
``FakeDriver``.

A move leaves a copy of the VM on the source from
``migrate_disk_and_power_off`` until ``confirm_migration`` removes it or
``finish_revert_migration`` starts it again; the destination's VM is a
new record. Each step waits its ``[fake_driver] operation_delays`` entry
and fails where ``fail_operations`` names it with the node it runs on
(``prep_resize`` and ``finish_migration``: the destination node; the
others: the source node).
"""

import dataclasses
import time

from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.objects import fields

LOG = logging.getLogger(__name__)

# The operations of this module, for [fake_driver] fail_operations.
MOVE_OPERATIONS = ('prep_resize', 'migrate_disk_and_power_off',
                   'finish_migration', 'confirm_migration',
                   'finish_revert_migration')


def _delay(operation):
    value = CONF.fake_driver.operation_delays.get(operation)
    try:
        return max(0.0, float(value)) if value else 0.0
    except ValueError:
        return 0.0


def _power(power_on):
    return (fields.PowerState.RUNNING if power_on
            else fields.PowerState.SHUTDOWN)


class MovesMixin:
    """Needs the FakeDriver's ``_lock``, ``_instances``, ``_failing`` and
    ``_new_record(instance, flavor, nodename)``."""

    def _moved_away_copies(self):
        if not hasattr(self, '_moved_away'):
            self._moved_away = {}   # uuid -> the source copy of a move
        return self._moved_away

    def _inject(self, operation, instance, nodename):
        delay = _delay(operation)
        if delay:
            time.sleep(delay)
        if (operation, nodename) in self._failing:
            raise exception.InstanceOperationFailed(
                operation=operation, instance_uuid=instance.uuid,
                reason='fault injection: [fake_driver] fail_operations '
                       'includes %s:%s' % (operation, nodename))

    def prepare_for_move(self, context, instance, flavor, nodename):
        self.node(nodename)
        self._inject('prep_resize', instance, nodename)

    def migrate_disk_and_power_off(self, context, instance, flavor,
                                   dest_host, dest_node):
        with self._lock:
            record = self._instances.get(instance.uuid)
        if record is None:
            raise exception.InstanceNotFound(instance_id=instance.uuid)
        self._inject('migrate_disk_and_power_off', instance, record.node)
        with self._lock:
            record = dataclasses.replace(
                self._instances.pop(instance.uuid),
                power_state=fields.PowerState.SHUTDOWN)
            self._moved_away_copies()[instance.uuid] = record
        LOG.debug('Instance %s left node %s for %s (%s)', instance.uuid,
                  record.node, dest_host, dest_node)

    def finish_migration(self, context, instance, flavor, nodename,
                         power_on):
        self.node(nodename)
        self._inject('finish_migration', instance, nodename)
        record = self._new_record(instance, flavor, nodename)
        record = dataclasses.replace(record, power_state=_power(power_on))
        with self._lock:
            self._instances[instance.uuid] = record

    def confirm_migration(self, context, instance, nodename):
        self._inject('confirm_migration', instance, nodename)
        with self._lock:
            gone = self._moved_away_copies().pop(instance.uuid, None)
        if gone is None:
            LOG.debug('No source copy of instance %s to remove',
                      instance.uuid)

    def list_moved_away_uuids(self):
        with self._lock:
            return list(self._moved_away_copies())

    def finish_revert_migration(self, context, instance, nodename,
                                power_on):
        self._inject('finish_revert_migration', instance, nodename)
        with self._lock:
            record = self._moved_away_copies().pop(instance.uuid, None)
            if record is None:
                raise exception.InstanceNotFound(instance_id=instance.uuid)
            self._instances[instance.uuid] = dataclasses.replace(
                record, power_state=_power(power_on))
