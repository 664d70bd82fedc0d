"""Rebuild and evacuation on the computes.

The conductor checked a new image against this host's rebuild filters
(``conductor/tasks/rebuild.py``), or chose and claimed this host as the
target of an evacuation (``conductor/tasks/evacuate.py``); the compute
rebuilds the VM, in Nova's task states: ``rebuilding`` (set by the API)
-> ``rebuild_block_device_mapping`` -> ``rebuild_spawning`` -> none.

* In place: the driver rebuilds the VM from the image; the server ends
  ACTIVE, or SHUTOFF if it was (as Nova). A failure puts it in ERROR
  with a fault (Nova's outcome: the guest's state is then unknown).
* Evacuation (``recreate``): the node is claimed in the resource tracker
  and the driver creates the VM here; the instance now lives here
  (``host``, ``node``, zone), ACTIVE, or SHUTOFF if it was or when the
  request asked (2.95), and the migration is ``done``. A failure (claim
  or driver) removes what was made here and hands the evacuation back to
  the conductor with the alternates left, which tries the next or ends
  it in ERROR.

At start (``destroy_evacuated_instances``), as Nova's compute does, a
compute looks for evacuations from it (``accepted``, ``pre-migrating``,
``done``): it removes its copy of each VM, and for each one done asks the
conductor to free what the instance still holds here and mark the
migration ``completed``.
"""

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.compute import build
from nova_lite.compute import power
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields

LOG = logging.getLogger(__name__)

_T = fields.TaskState
_V = fields.VMState
_P = fields.PowerState
_GONE = (exception.InstanceNotFound, exception.UnexpectedTaskStateError)
EVENT = 'compute_rebuild_instance'
# Evacuations from a host whose copy may still be there (Nova's list).
EVACUATED_STATUSES = ('accepted', 'pre-migrating', 'done')


class Rebuilds:
    """The rebuild steps of one compute; the manager routes RPC here under
    the instance's lock."""

    def __init__(self, host, driver, tracker, conductor_api_factory):
        self.host = host
        self.driver = driver
        self.rt = tracker
        self._conductor_api = conductor_api_factory

    def rebuild_instance(self, context, instance, image_ref, orig_image_ref,
                         new_pass=None, preserve_ephemeral=False,
                         recreate=False, on_shared_storage=None,
                         migration=None, node=None, request_spec=None,
                         host_list=None, target_state=None):
        """Rebuild in place, or (``recreate``) as an evacuation's target.
        Returns True on success."""
        power.event_start(context, instance, EVENT, self.host)
        stopped = (instance.vm_state == _V.STOPPED
                   or target_state == _V.STOPPED)
        if recreate:
            done = self._recreate(context, instance, migration, node,
                                  request_spec, host_list, not stopped)
        else:
            done = self._in_place(context, instance, request_spec,
                                  not stopped)
        if done:
            power.event_finish(context, instance, EVENT)
        return done

    def _in_place(self, context, instance, request_spec, power_on):
        try:
            self._spawning(instance)
            power.vm_step(self.driver.rebuild, context, instance,
                          build.image_meta(request_spec), instance.node, False,
                          power_on)
            self._finish(instance, power_on)
        except _GONE as exc:
            power.event_finish(context, instance, EVENT, exc)
            return False
        except Exception as exc:
            self._failed(context, instance, exc)
            return False
        LOG.info('Instance %s rebuilt from image %s', instance.uuid,
                 instance.image_ref)
        return True

    def _recreate(self, context, instance, migration, node, request_spec,
                  host_list, power_on):
        claim = None
        try:
            claim = self.rt.instance_claim(context, instance, node)
            self._spawning(instance)
            self.driver.rebuild(context, instance,
                                build.image_meta(request_spec), node, True,
                                power_on)
            self._land(instance, node, host_list)
            self._finish(instance, power_on)
        except _GONE as exc:
            self._abort(context, instance, claim)
            power.event_finish(context, instance, EVENT, exc)
            return False
        except Exception as exc:
            self._abort(context, instance, claim)
            self._hand_back(context, instance, migration, node, request_spec,
                            host_list, exc)
            return False
        self.rt.update_usage(context, instance, node)
        migration.status = 'done'
        migration.save()
        LOG.info('Instance %s evacuated from %s to %s (%s)', instance.uuid,
                 migration.source_compute, self.host, node)
        return True

    @staticmethod
    def _spawning(instance):
        instance.task_state = _T.REBUILD_BLOCK_DEVICE_MAPPING
        instance.save(expected_task_state=[_T.REBUILDING])
        instance.task_state = _T.REBUILD_SPAWNING
        instance.save(expected_task_state=[_T.REBUILD_BLOCK_DEVICE_MAPPING])

    def _land(self, instance, node, host_list):
        instance.host = self.host
        instance.node = node
        instance.compute_node_uuid = self.driver.get_node_uuid(node)
        selection = host_list[0] if host_list else None
        zone = (selection.availability_zone if selection is not None
                and selection.obj_attr_is_set('availability_zone')
                else None)
        if zone:
            instance.availability_zone = zone

    @staticmethod
    def _finish(instance, power_on):
        instance.vm_state = _V.ACTIVE if power_on else _V.STOPPED
        instance.power_state = _P.RUNNING if power_on else _P.SHUTDOWN
        instance.task_state = None
        instance.launched_at = timeutils.utcnow()
        instance.save(expected_task_state=[_T.REBUILD_SPAWNING])

    def _abort(self, context, instance, claim):
        if claim is None:
            return
        try:
            self.driver.destroy(context, instance)
        except Exception:
            LOG.exception('Removing the copy of instance %s on %s failed',
                          instance.uuid, self.host)
        claim.abort()

    def _failed(self, context, instance, error):
        LOG.error('Rebuild of instance %s failed: %s', instance.uuid,
                  power.message(error))
        power.record_fault(context, self.host, instance, error)
        power.event_finish(context, instance, EVENT, error)
        instance.vm_state = _V.ERROR
        instance.task_state = None
        try:
            instance.save()
        except exception.InstanceNotFound:
            pass

    def _hand_back(self, context, instance, migration, node, request_spec,
                   host_list, error):
        """Record why this target failed and give the evacuation back to
        the conductor with the alternates left."""
        LOG.warning('Evacuation of instance %s to %s (%s) failed: %s',
                    instance.uuid, self.host, node, power.message(error))
        power.record_fault(context, self.host, instance, error)
        power.event_finish(context, instance, EVENT, error)
        instance.task_state = _T.REBUILDING
        try:
            instance.save(expected_task_state=[
                _T.REBUILDING, _T.REBUILD_BLOCK_DEVICE_MAPPING,
                _T.REBUILD_SPAWNING])
        except _GONE:
            return
        self._conductor_api().rebuild_instance(
            context, instance, instance.image_ref, instance.image_ref,
            recreate=True, migration=migration, request_spec=request_spec,
            host_list=list(host_list[1:]) if host_list else [])

    # At start

    def destroy_evacuated_instances(self, context):
        """Remove this host's copies of the instances evacuated from it
        and have the conductor free what the finished evacuations still
        hold here. Never raises; returns the migration uuids completed."""
        try:
            migrations = objects.MigrationList.get_by_filters(context, {
                'source_compute': self.host,
                'migration_type': 'evacuation',
                'status': list(EVACUATED_STATUSES)})
        except Exception:
            LOG.exception('Cannot list the evacuations from %s', self.host)
            return []
        completed = []
        for migration in migrations:
            try:
                if self._clean_up(context, migration):
                    completed.append(migration.uuid)
            except Exception:
                LOG.exception('Cleaning up the evacuation %s of instance %s '
                              'failed', migration.uuid,
                              migration.instance_uuid)
        return completed

    def _clean_up(self, context, migration):
        instance = objects.Instance(context, uuid=migration.instance_uuid)
        LOG.info('Instance %s was evacuated from this host (%s); removing '
                 'its copy here', instance.uuid, migration.status)
        try:
            self.driver.destroy(context, instance)
        except exception.InstanceNotFound:
            pass
        self.rt.free_instance(instance)
        if migration.status != 'done':
            return False
        return self._conductor_api().complete_evacuation(context, migration)


