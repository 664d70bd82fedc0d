"""Client side of the compute RPC API.

API version history:

* 1.0 - Initial version (release "acorn"): build_and_run_instance,
        terminate_instance.
* 1.1 - Server actions (release "bramble"): reboot_instance,
        stop_instance, start_instance, pause_instance, unpause_instance,
        suspend_instance, resume_instance.
* 1.2 - Resize and cold migration (release "bramble"): prep_resize,
        resize_instance, finish_resize, confirm_resize, revert_resize,
        finish_revert_resize.
* 1.3 - Snapshots and shelving (release "bramble"): snapshot_instance,
        shelve_instance, shelve_offload_instance, unshelve_instance.
* 1.4 - Rebuild and evacuate (release "bramble"): rebuild_instance
        (``recreate`` for an evacuation, with the migration and the
        alternates).
* 1.5 - Live migration (release "bramble"): check_can_live_migrate_
        destination, pre_live_migration, live_migration,
        post_live_migration_at_destination,
        rollback_live_migration_at_destination, live_migration_abort,
        live_migration_force_complete.
* 1.6 - Crash dumps (release "bramble"): trigger_crash_dump.
* 1.7 - Diagnostics and host uptime (release "bramble"): get_diagnostics,
        get_instance_diagnostics, get_host_uptime (calls).
* 1.8 - Backups (release "bramble"): backup_instance.
* 1.9 - Aggregate image pre-cache (release "bramble"): cache_images.
* 1.10 - revert_resize(conductor_finishes) (release "bramble"): the
         destination removes its VM, then hands the revert to the
         conductor (conductor RPC 1.9 finish_revert_resize), which gives
         the source back its allocations and casts finish_revert_resize
         there; the destination holds its allocations until its VM is
         gone. Pinned below, the conductor changes the records first and
         the destination casts finish_revert_resize itself, as before.

A client pinned below 1.1 refuses the 1.1 methods with
UnsupportedRPCVersion (a compute of that release cannot do them); the API
checks ``can_send_actions`` first to answer 409 instead. The 1.2 moves
likewise, with ``can_send_moves``, the 1.3 snapshots and shelving with
``can_send_shelve``, the 1.4 rebuild with ``can_send_rebuild``, the
1.5 live migration with ``can_send_live_migration``, the 1.6 crash
dump with ``can_send_crash_dump`` and the 1.7 diagnostics and uptime
with ``can_send_diagnostics``, the 1.8 backups with ``can_send_backup``,
the 1.9 image pre-cache with ``can_send_image_cache``. The conductor
checks ``can_send_revert_dest_first`` before it asks for the 1.10
revert.
"""

import oslo_messaging as messaging

from nova_lite import releases
from nova_lite import rpc
from nova_lite import rpc_pins

RPC_TOPIC = 'compute'
RPC_VERSION = '1.10'
# The version that brought the server actions.
ACTIONS_VERSION = '1.1'
# The version that brought resize and cold migration.
MOVES_VERSION = '1.2'
# The version that brought rebuild and evacuate.
REBUILD_VERSION = '1.4'
# The version that brought snapshots (createImage) and shelving.
SHELVE_VERSION = '1.3'
# The version that brought live migration.
LIVE_MIGRATION_VERSION = '1.5'
# The version that brought trigger_crash_dump.
CRASH_DUMP_VERSION = '1.6'
# The version that brought server diagnostics and the host's uptime.
DIAGNOSTICS_VERSION = '1.7'
# The version that brought createBackup.
BACKUP_VERSION = '1.8'
# The version that brought the aggregate image pre-cache.
IMAGE_CACHE_VERSION = '1.9'
# The version whose revert_resize lets the conductor finish the revert.
REVERT_DEST_FIRST_VERSION = '1.10'

VERSION_ALIASES = releases.rpc_aliases('compute')
# Instance fields computes never read, not sent to them: the user data
# (up to 65535 characters) is the API's alone (nova_lite has no metadata
# service or config drive).
NOT_SENT = {'Instance': ('user_data',)}

# Every method names the version it needs (the oldest that has its current
# form), never the newest: a client pinned to an older release can then
# still send everything that did not change.


class ComputeAPI:

    def __init__(self):
        target = messaging.Target(topic=RPC_TOPIC, version=RPC_VERSION)
        self.client = rpc.get_client(target, pin=rpc_pins.Pin('compute'),
                                     omit=NOT_SENT)

    def build_and_run_instance(self, context, instance, host, node,
                               request_spec, host_list):
        """Build ``instance`` on ``node`` of compute ``host`` (cast).

        ``host_list`` is the full list of Selections for this instance: the
        claimed one first, then the alternates for a reschedule.
        """
        cctxt = self.client.prepare(server=host, version='1.0')
        cctxt.cast(context, 'build_and_run_instance', instance=instance,
                   node=node, request_spec=request_spec, host_list=host_list)

    def terminate_instance(self, context, instance):
        """Destroy ``instance`` on its host and delete its record (cast)."""
        cctxt = self.client.prepare(server=instance.host, version='1.0')
        cctxt.cast(context, 'terminate_instance', instance=instance)

    # -- 1.1: server actions (casts to the instance's host) -------------

    def can_send_actions(self):
        """Whether the pin lets this client send the 1.1 server actions."""
        return self.client.can_send_version(ACTIONS_VERSION)

    def reboot_instance(self, context, instance, reboot_type):
        """Reboot ``instance`` (``reboot_type`` SOFT or HARD) (cast)."""
        cctxt = self.client.prepare(server=instance.host, version='1.1')
        cctxt.cast(context, 'reboot_instance', instance=instance,
                   reboot_type=reboot_type)

    def stop_instance(self, context, instance):
        """Power ``instance`` off (cast)."""
        cctxt = self.client.prepare(server=instance.host, version='1.1')
        cctxt.cast(context, 'stop_instance', instance=instance)

    def start_instance(self, context, instance):
        """Power ``instance`` on (cast)."""
        cctxt = self.client.prepare(server=instance.host, version='1.1')
        cctxt.cast(context, 'start_instance', instance=instance)

    def pause_instance(self, context, instance):
        """Pause ``instance`` in memory (cast)."""
        cctxt = self.client.prepare(server=instance.host, version='1.1')
        cctxt.cast(context, 'pause_instance', instance=instance)

    def unpause_instance(self, context, instance):
        """Unpause ``instance`` (cast)."""
        cctxt = self.client.prepare(server=instance.host, version='1.1')
        cctxt.cast(context, 'unpause_instance', instance=instance)

    def suspend_instance(self, context, instance):
        """Suspend ``instance`` to disk (cast)."""
        cctxt = self.client.prepare(server=instance.host, version='1.1')
        cctxt.cast(context, 'suspend_instance', instance=instance)

    def resume_instance(self, context, instance):
        """Resume a suspended ``instance`` (cast)."""
        cctxt = self.client.prepare(server=instance.host, version='1.1')
        cctxt.cast(context, 'resume_instance', instance=instance)

    # -- 1.2: resize and cold migration (see compute/moves.py) ----------

    def can_send_moves(self):
        """Whether the pin lets this client send the 1.2 moves (a pin
        below refuses them with UnsupportedRPCVersion)."""
        return self.client.can_send_version(MOVES_VERSION)

    def prep_resize(self, context, instance, migration, flavor,
                    request_spec, host_list):
        """Claim ``flavor`` for ``instance`` on the destination
        ``migration.dest_compute`` (cast); ``host_list`` is the claimed
        Selection then the alternates, handed back on failure."""
        self.client.prepare(
            server=migration.dest_compute, version=MOVES_VERSION).cast(
            context, 'prep_resize', instance=instance, migration=migration,
            flavor=flavor, request_spec=request_spec, host_list=host_list)

    def resize_instance(self, context, instance, migration, flavor):
        """Power off and send away the source VM (cast to the source)."""
        self.client.prepare(
            server=migration.source_compute, version=MOVES_VERSION).cast(
            context, 'resize_instance', instance=instance,
            migration=migration, flavor=flavor)

    def finish_resize(self, context, instance, migration, flavor):
        """Start the VM on the destination, VERIFY_RESIZE (cast)."""
        self.client.prepare(
            server=migration.dest_compute, version=MOVES_VERSION).cast(
            context, 'finish_resize', instance=instance, migration=migration,
            flavor=flavor)

    def confirm_resize(self, context, instance, migration):
        """Remove what is left of the VM on the source (cast)."""
        self.client.prepare(
            server=migration.source_compute, version=MOVES_VERSION).cast(
            context, 'confirm_resize', instance=instance,
            migration=migration)

    def can_send_revert_dest_first(self):
        """Whether the pin lets this client send the 1.10 revert_resize
        (``conductor_finishes``)."""
        return self.client.can_send_version(REVERT_DEST_FIRST_VERSION)

    def revert_resize(self, context, instance, migration,
                      conductor_finishes=False):
        """Remove the VM from the destination (cast), which then casts
        ``finish_revert_resize`` to the source, or with
        ``conductor_finishes`` (1.10) hands the revert to the conductor's
        ``finish_revert_resize``."""
        kwargs = {}
        version = MOVES_VERSION
        if conductor_finishes:
            kwargs['conductor_finishes'] = True
            version = REVERT_DEST_FIRST_VERSION
        self.client.prepare(
            server=migration.dest_compute, version=version).cast(
            context, 'revert_resize', instance=instance, migration=migration,
            **kwargs)

    def finish_revert_resize(self, context, instance, migration):
        """Bring the VM back on the source (cast)."""
        self.client.prepare(
            server=migration.source_compute, version=MOVES_VERSION).cast(
            context, 'finish_revert_resize', instance=instance,
            migration=migration)

    # -- 1.3: snapshots and shelving (see compute/shelve.py) ------------

    def can_send_shelve(self):
        """Whether the pin lets this client send the 1.3 snapshot and
        shelve methods (a pin below refuses them)."""
        return self.client.can_send_version(SHELVE_VERSION)

    def snapshot_instance(self, context, instance, image_id):
        """Snapshot ``instance`` into the queued image ``image_id``
        (cast to its host)."""
        self.client.prepare(
            server=instance.host, version=SHELVE_VERSION).cast(
            context, 'snapshot_instance', instance=instance,
            image_id=image_id)

    def shelve_instance(self, context, instance, image_id,
                        clean_shutdown=True):
        """Power off and snapshot ``instance`` into ``image_id``, SHELVED;
        offloaded at once when [DEFAULT] shelved_offload_time is 0 (cast
        to its host)."""
        self.client.prepare(
            server=instance.host, version=SHELVE_VERSION).cast(
            context, 'shelve_instance', instance=instance,
            image_id=image_id, clean_shutdown=clean_shutdown)

    def shelve_offload_instance(self, context, instance,
                                clean_shutdown=True):
        """Remove a SHELVED ``instance`` from its host and free the host's
        allocations (cast to its host)."""
        self.client.prepare(
            server=instance.host, version=SHELVE_VERSION).cast(
            context, 'shelve_offload_instance', instance=instance,
            clean_shutdown=clean_shutdown)

    def unshelve_instance(self, context, instance, host, node=None,
                          request_spec=None, host_list=None):
        """Start a shelved ``instance`` on ``host`` (cast): a SHELVED one
        where it is (``node`` None), an offloaded one on the ``node`` the
        conductor claimed, ``host_list`` being that Selection then the
        alternates, handed back on failure."""
        self.client.prepare(server=host, version=SHELVE_VERSION).cast(
            context, 'unshelve_instance', instance=instance, node=node,
            request_spec=request_spec, host_list=host_list)

    # -- 1.4: rebuild and evacuate (see compute/rebuild.py) -------------

    def can_send_rebuild(self):
        """Whether the pin lets this client send the 1.4 rebuild (a pin
        below refuses it with UnsupportedRPCVersion)."""
        return self.client.can_send_version(REBUILD_VERSION)

    def rebuild_instance(self, context, instance, host, image_ref,
                         orig_image_ref, new_pass=None,
                         preserve_ephemeral=False, recreate=False,
                         on_shared_storage=None, migration=None, node=None,
                         request_spec=None, host_list=None,
                         target_state=None):
        """Rebuild ``instance`` on compute ``host`` (cast): in place
        from ``image_ref``, or, with ``recreate`` (an evacuation), on
        ``node`` of a new host after its own went down. ``migration`` is
        the evacuation's record; ``host_list`` the claimed Selection
        then the alternates, handed back if the claim fails there;
        ``target_state`` the vm_state to end in (STOPPED from 2.95)."""
        self.client.prepare(server=host, version=REBUILD_VERSION).cast(
            context, 'rebuild_instance', instance=instance,
            image_ref=image_ref, orig_image_ref=orig_image_ref,
            new_pass=new_pass, preserve_ephemeral=preserve_ephemeral,
            recreate=recreate, on_shared_storage=on_shared_storage,
            migration=migration, node=node, request_spec=request_spec,
            host_list=host_list, target_state=target_state)

    # -- 1.5: live migration (see compute/live_migration.py) ------------

    def can_send_live_migration(self):
        """Whether the pin lets this client send the 1.5 live migration
        methods."""
        return self.client.can_send_version(LIVE_MIGRATION_VERSION)

    def check_can_live_migrate_destination(self, context, instance,
                                           migration, block_migration):
        """Ask the destination ``migration.dest_compute`` whether it can
        take ``instance`` on ``migration.dest_node`` (call); returns the
        migrate data (dict), raises MigrationPreCheckError if not."""
        cctxt = self.client.prepare(server=migration.dest_compute,
                                    version=LIVE_MIGRATION_VERSION)
        return cctxt.call(
            context, 'check_can_live_migrate_destination',
            instance=instance, migration=migration,
            block_migration=block_migration)

    def pre_live_migration(self, context, instance, migration,
                           migrate_data):
        """Prepare the destination to receive ``instance`` (call)."""
        cctxt = self.client.prepare(server=migration.dest_compute,
                                    version=LIVE_MIGRATION_VERSION)
        return cctxt.call(
            context, 'pre_live_migration', instance=instance,
            migration=migration, migrate_data=migrate_data)

    def live_migration(self, context, instance, migration, migrate_data):
        """Copy the running ``instance`` to the destination (cast to the
        source, which runs the rest of the protocol)."""
        cctxt = self.client.prepare(server=migration.source_compute,
                                    version=LIVE_MIGRATION_VERSION)
        cctxt.cast(
            context, 'live_migration', instance=instance,
            migration=migration, migrate_data=migrate_data)

    def post_live_migration_at_destination(self, context, instance,
                                           migration):
        """The VM runs on the destination: take it over there (cast)."""
        cctxt = self.client.prepare(server=migration.dest_compute,
                                    version=LIVE_MIGRATION_VERSION)
        cctxt.cast(
            context, 'post_live_migration_at_destination',
            instance=instance, migration=migration)

    def rollback_live_migration_at_destination(self, context, instance,
                                               migration):
        """Drop what the destination prepared (cast)."""
        cctxt = self.client.prepare(server=migration.dest_compute,
                                    version=LIVE_MIGRATION_VERSION)
        cctxt.cast(
            context, 'rollback_live_migration_at_destination',
            instance=instance, migration=migration)

    def live_migration_abort(self, context, instance, migration):
        """Cancel the live migration ``migration`` in progress (cast to
        the source)."""
        cctxt = self.client.prepare(server=migration.source_compute,
                                    version=LIVE_MIGRATION_VERSION)
        cctxt.cast(
            context, 'live_migration_abort', instance=instance,
            migration=migration)

    def live_migration_force_complete(self, context, instance, migration):
        """Finish the running live migration now (cast to the source)."""
        cctxt = self.client.prepare(server=migration.source_compute,
                                    version=LIVE_MIGRATION_VERSION)
        cctxt.cast(
            context, 'live_migration_force_complete', instance=instance,
            migration=migration)

    # -- 1.6: crash dumps -----------------------------------------------

    def can_send_crash_dump(self):
        """Whether the pin lets this client send trigger_crash_dump."""
        return self.client.can_send_version(CRASH_DUMP_VERSION)

    def trigger_crash_dump(self, context, instance):
        """Have the instance's compute send it an NMI (cast)."""
        cctxt = self.client.prepare(server=instance.host,
                                    version=CRASH_DUMP_VERSION)
        cctxt.cast(context, 'trigger_crash_dump', instance=instance)

    # -- 1.7: diagnostics and host uptime (see compute/diagnostics.py) ---

    def can_send_diagnostics(self):
        """Whether the pin lets this client ask for diagnostics and the
        host's uptime."""
        return self.client.can_send_version(DIAGNOSTICS_VERSION)

    def get_diagnostics(self, context, instance):
        """The driver's own diagnostics of the running ``instance``, a
        flat dict (call to its host); InstanceInvalidState unless it is
        running."""
        cctxt = self.client.prepare(server=instance.host,
                                    version=DIAGNOSTICS_VERSION)
        return cctxt.call(context, 'get_diagnostics', instance=instance)

    def get_instance_diagnostics(self, context, instance):
        """The standardized diagnostics of the running ``instance`` (a
        dict of Nova's 2.48 fields; call to its host);
        InstanceInvalidState unless it is running."""
        cctxt = self.client.prepare(server=instance.host,
                                    version=DIAGNOSTICS_VERSION)
        return cctxt.call(context, 'get_instance_diagnostics',
                          instance=instance)

    def get_host_uptime(self, context, host):
        """The uptime line of compute ``host``, in the format of the
        ``uptime`` command (call)."""
        cctxt = self.client.prepare(server=host,
                                    version=DIAGNOSTICS_VERSION)
        return cctxt.call(context, 'get_host_uptime')

    # -- 1.8: backups (see compute/shelve.py) ---------------------------

    def can_send_backup(self):
        """Whether the pin lets this client send backup_instance."""
        return self.client.can_send_version(BACKUP_VERSION)

    def backup_instance(self, context, instance, image_id, backup_type,
                        rotation):
        """Snapshot ``instance`` into the queued backup ``image_id``, then
        keep only the newest ``rotation`` backups of ``backup_type`` (cast
        to its host)."""
        self.client.prepare(
            server=instance.host, version=BACKUP_VERSION).cast(
            context, 'backup_instance', instance=instance,
            image_id=image_id, backup_type=backup_type, rotation=rotation)

    # -- 1.9: the aggregate image pre-cache (see compute/image_cache.py) ----

    def can_send_image_cache(self):
        """Whether the pin lets this client send cache_images."""
        return self.client.can_send_version(IMAGE_CACHE_VERSION)

    def cache_images(self, context, host, image_ids):
        """Have compute ``host`` fetch ``image_ids`` (a list of image ids)
        into its image cache (cast)."""
        self.client.prepare(server=host, version=IMAGE_CACHE_VERSION).cast(
            context, 'cache_images', image_ids=image_ids)
