"""Client side of the conductor RPC API.

API version history:

* 1.0 - Initial version (release "acorn"): ping,
        object_class_action_versions, object_action,
        object_backport_versions, provision_instances, build_instances,
        update_compute_provider.
* 1.1 - Resize and cold migration (release "bramble"): migrate_server,
        confirm_resize, revert_resize. A client pinned below refuses them
        with UnsupportedRPCVersion; the API checks ``can_send_moves``.
* 1.2 - Shelving (release "bramble"): unshelve_instance. The API checks
        ``can_send_shelve``.
* 1.3 - Rebuild and evacuate (release "bramble"): rebuild_instance,
        complete_evacuation. The API checks ``can_send_rebuild``.
* 1.4 - Live migration (release "bramble"): live_migrate_instance. The
        API checks ``can_send_live_migration``.
* 1.5 - provision_instances(build=True) (release "bramble"): the conductor
        that created the records starts their build itself once it has
        answered, which saves the build_instances cast of a boot. A client
        pinned below sends that cast after the call, as before.
        object_action also takes a sparse object for the methods its class
        names in ``obj_sparse_methods`` (Instance.save): the identity and
        changed fields only. Pinned below, the whole object is sent.
* 1.6 - Build receipts (release "bramble"): build_received, sent by a
        compute as a build cast arrives; not sent while pinned below.
* 1.7 - provision_instances(request_key) (release "bramble"): a call that
        names its request's key may be sent again after a lost answer
        and returns the first attempt's servers. Pinned below, the key is
        not sent and the API waits rpc_response_timeout, once.
* 1.8 - settle_moves (release "bramble"): a compute that restarted says
        so as it starts, and the moves whose current step was its own are
        settled at once. Pinned below, it says nothing and they wait for
        [conductor] task_timeout.
* 1.9 - finish_revert_resize (release "bramble"): a destination compute
        whose VM of a reverted move is gone hands the revert back (see
        compute RPC 1.10); the conductor then gives the source its
        allocations back. Sent only in answer to a 1.10 revert_resize,
        which a conductor sends only to computes that can send this.
        shelve_offloaded: a compute that removed a shelved VM has the
        conductor record the offload (conductor/tasks/shelve_offload.py).
        Pinned below, the compute saves it with Instance.save_offloaded,
        which runs the same task.
* 1.10 - build_started (release "bramble"): a compute's receipt of a
         build and its first save (spawning on its host and node) in one
         cast, applied only while the build still waits for it
         (conductor/tasks/build_started.py); the final save then expects
         scheduling or spawning. A boot takes 8 messages instead of 10.
         build_received may also be called, so that a compute that hands
         a build back knows a late build_started cannot undo it. Pinned
         below, the compute sends the receipt and the first save (a
         call), as before.
"""

import contextlib
import threading

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.objects import base as objects_base
from nova_lite import releases
from nova_lite import rpc
from nova_lite import rpc_pins

LOG = logging.getLogger(__name__)

RPC_TOPIC = 'conductor'
RPC_VERSION = '1.10'
# The version that brought resize and cold migration.
MOVES_VERSION = '1.1'
# The version that brought unshelving.
SHELVE_VERSION = '1.2'
# The version that brought rebuild and evacuate.
REBUILD_VERSION = '1.3'
# The version that brought live migration.
LIVE_MIGRATION_VERSION = '1.4'
# The version whose provision_instances can start the build itself.
PROVISION_BUILDS_VERSION = '1.5'
# The version whose object_action takes sparse objects.
SPARSE_ACTION_VERSION = '1.5'
# The version that brought build receipts.
BUILD_RECEIVED_VERSION = '1.6'
# The version whose provision_instances takes a request key.
REQUEST_KEY_VERSION = '1.7'
# The version that brought settle_moves.
SETTLE_MOVES_VERSION = '1.8'
# The version that brought finish_revert_resize.
FINISH_REVERT_VERSION = '1.9'
# The version that brought shelve_offloaded.
SHELVE_OFFLOADED_VERSION = '1.9'
# The version that brought build_started.
BUILD_STARTED_VERSION = '1.10'

# Release name -> the newest conductor RPC version that release speaks,
# accepted by [upgrade_levels] conductor.
VERSION_ALIASES = releases.rpc_aliases('conductor')

# Seconds the object calls of one thread wait for their answer, when set
# by ``call_timeout`` (else rpc_response_timeout).
_local = threading.local()


@contextlib.contextmanager
def call_timeout(seconds):
    """``with call_timeout(s):`` the remotable object calls this thread
    makes inside wait at most ``s`` seconds for the conductor's answer (a
    heartbeat must not wait longer than a service stays up without one)."""
    previous = getattr(_local, 'timeout', None)
    _local.timeout = seconds
    try:
        yield
    finally:
        _local.timeout = previous


def _call_timeout():
    return getattr(_local, 'timeout', None)


def current_call_timeout():
    """The ``call_timeout`` this thread set, or None."""
    return _call_timeout()


# Every method names the version it needs (the oldest that has its current
# form), never the newest: a client pinned to an older release can then
# still send everything that did not change.


class ConductorAPI:
    """What the other services ask of the conductor.

    Also the ``indirection_api`` of processes without database access:
    their remotable object methods become the three ``object_*`` calls.
    """

    def __init__(self):
        target = messaging.Target(topic=RPC_TOPIC, version=RPC_VERSION)
        self.client = rpc.get_client(target, pin=rpc_pins.Pin('conductor'))

    def ping(self, context, arg, timeout=None):
        """Round trip to a conductor (call); returns ``arg``."""
        cctxt = self.client.prepare(timeout=timeout, version='1.0')
        return cctxt.call(context, 'ping', arg=arg)

    def wait_until_ready(self, context, attempt_timeout=2):
        """Block until a conductor answers.

        A message sent before any conductor consumes is dropped by the
        broker, so a service that needs the conductor to start (a compute)
        waits here first, saying so in its log, for as long as it takes.
        """
        attempt = 0
        while True:
            attempt += 1
            try:
                self.ping(context, 'ready?', timeout=attempt_timeout)
                if attempt > 1:
                    LOG.info('Conductor answered after %d attempts', attempt)
                return
            except messaging.MessagingTimeout:
                LOG.warning('No conductor answered within %ss (attempt %d); '
                            'is nova-lite-conductor running on this '
                            'transport? Still waiting.', attempt_timeout,
                            attempt)

    # Object indirection (oslo.versionedobjects' VersionedObjectIndirectionAPI)

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        cctxt = self.client.prepare(version='1.0', timeout=_call_timeout())
        return cctxt.call(context, 'object_class_action_versions',
                          objname=objname, objmethod=objmethod,
                          object_versions=object_versions,
                          args=args, kwargs=kwargs)

    def object_action(self, context, objinst, objmethod, args, kwargs):
        sparse = objinst.obj_sparse_for(objmethod)
        if sparse is not None and self.client.can_send_version(
                SPARSE_ACTION_VERSION):
            cctxt = self.client.prepare(version=SPARSE_ACTION_VERSION,
                                        timeout=_call_timeout())
            return cctxt.call(context, 'object_action', objinst=sparse,
                              objmethod=objmethod, args=args, kwargs=kwargs)
        cctxt = self.client.prepare(version='1.0', timeout=_call_timeout())
        return cctxt.call(context, 'object_action', objinst=objinst,
                          objmethod=objmethod, args=args, kwargs=kwargs)

    def object_backport_versions(self, context, objinst, object_versions):
        cctxt = self.client.prepare(version='1.0')
        return cctxt.call(context, 'object_backport_versions',
                          objinst=objinst, object_versions=object_versions)

    # Boot

    def can_send_request_key(self):
        """Whether the pin lets this client send provision_instances a
        request key (1.7), which makes it safe to send again."""
        return self.client.can_send_version(REQUEST_KEY_VERSION)

    def provision_instances(self, context, instance, request_spec,
                            min_count, max_count, build=False,
                            request_key=None, timeout=None):
        """Create the records of a boot request (call).

        ``instance`` is an unsaved template; returns the InstanceList
        created (between min_count and max_count instances). With
        ``build`` their build starts too: in the conductor that created
        them, after it answered (1.5), or, pinned below 1.5, with a
        ``build_instances`` cast sent here after the answer. With
        ``request_key`` (1.7; check ``can_send_request_key``) a second
        call with the same key returns the first one's servers.
        ``timeout`` bounds the wait (else rpc_response_timeout).
        """
        kwargs = {}
        if request_key is not None:
            kwargs['request_key'] = request_key
            version = REQUEST_KEY_VERSION
        elif build and self.client.can_send_version(
                PROVISION_BUILDS_VERSION):
            version = PROVISION_BUILDS_VERSION
        else:
            version = '1.0'
        if version != '1.0':
            kwargs['build'] = build
        cctxt = self.client.prepare(version=version, timeout=timeout)
        instances = cctxt.call(context, 'provision_instances',
                               instance=instance, request_spec=request_spec,
                               min_count=min_count, max_count=max_count,
                               **kwargs)
        if build and version == '1.0':
            self.build_instances(context, instances, request_spec)
        return instances

    def build_instances(self, context, instances, request_spec,
                        host_lists=None):
        """Schedule and build ``instances`` (cast).

        ``host_lists`` is given on a reschedule: per instance, the
        alternates (Selections) still to try, as the compute that failed
        received them.
        """
        cctxt = self.client.prepare(version='1.0')
        cctxt.cast(context, 'build_instances', instances=instances,
                   request_spec=request_spec, host_lists=host_lists)

    def build_received(self, context, instance_uuid, host, wait=False,
                       timeout=None):
        """Compute ``host`` received the build of ``instance_uuid``
        (cast; see conductor/tasks/lost_casts.py). With ``wait`` a call,
        which returns once it is recorded (``timeout`` bounds the wait).
        Sends nothing while pinned below 1.6."""
        if not self.client.can_send_version(BUILD_RECEIVED_VERSION):
            return
        cctxt = self.client.prepare(version=BUILD_RECEIVED_VERSION,
                                    timeout=timeout)
        send = cctxt.call if wait else cctxt.cast
        send(context, 'build_received', instance_uuid=instance_uuid,
             host=host)

    def can_send_build_started(self):
        """Whether the pin lets this client send build_started (1.10)."""
        return self.client.can_send_version(BUILD_STARTED_VERSION)

    def build_started(self, context, instance, host):
        """Compute ``host`` received the build of ``instance`` and starts
        it: the receipt and the save to spawning on its host and node
        (``instance``'s changes, sent with its uuid alone), in one cast
        (1.10; check ``can_send_build_started``; see
        conductor/tasks/build_started.py)."""
        cctxt = self.client.prepare(version=BUILD_STARTED_VERSION)
        cctxt.cast(context, 'build_started',
                   instance=instance.obj_sparse_for('save'), host=host)

    # Compute reports

    def update_compute_provider(self, context, compute_node, inventories,
                                traits, owned_traits):
        """Write a node's inventories and traits to placement (call).

        ``inventories``: {resource_class: {total, reserved, min_unit,
        max_unit, step_size, allocation_ratio, initial_allocation_ratio}};
        an allocation_ratio of None keeps the provider's current ratio (or
        uses initial_allocation_ratio for a new one). ``traits`` replace the
        ``owned_traits`` on the provider; other traits stay. Returns the
        inventories as written, {resource_class: record}.
        """
        cctxt = self.client.prepare(version='1.0')
        return cctxt.call(context, 'update_compute_provider',
                          compute_node=compute_node, inventories=inventories,
                          traits=traits, owned_traits=owned_traits)

    # Moves (1.1): see conductor/tasks/migrate.py and resize_outcome.py

    def can_send_moves(self):
        """Whether the pin lets this client send the 1.1 moves."""
        return self.client.can_send_version(MOVES_VERSION)

    def migrate_server(self, context, instance, flavor, host=None,
                       reservation=None, migration=None, host_list=None,
                       request_spec=None):
        """Resize ``instance`` to ``flavor`` or cold-migrate it (the same
        flavor), to ``host`` if given (cast).

        ``reservation`` is the quota reservation of a larger flavor (the
        fields of quota.reservations.Reservation), committed when the
        move starts. A destination whose prep failed hands the move back
        with its ``migration``, ``request_spec`` and the alternates left
        (``host_list``).
        """
        cctxt = self.client.prepare(version=MOVES_VERSION)
        cctxt.cast(context, 'migrate_server', instance=instance,
                   flavor=flavor, host=host, reservation=reservation,
                   migration=migration, host_list=host_list,
                   request_spec=request_spec)

    def confirm_resize(self, context, instance, migration):
        """Keep the server where it moved and free the source (cast)."""
        cctxt = self.client.prepare(version=MOVES_VERSION)
        cctxt.cast(context, 'confirm_resize', instance=instance,
                   migration=migration)

    def revert_resize(self, context, instance, migration):
        """Move the server back to its source, old flavor (cast)."""
        cctxt = self.client.prepare(version=MOVES_VERSION)
        cctxt.cast(context, 'revert_resize', instance=instance,
                   migration=migration)

    def settle_moves(self, context, host):
        """Compute ``host`` restarted: settle the moves whose current step
        it was working on (call; conductor/tasks/move_timeouts.py). Sends
        nothing while pinned below 1.8; returns the uuids settled."""
        if not self.client.can_send_version(SETTLE_MOVES_VERSION):
            return []
        cctxt = self.client.prepare(version=SETTLE_MOVES_VERSION)
        return cctxt.call(context, 'settle_moves', host=host)

    def can_send_finish_revert(self):
        """Whether the pin lets this client send finish_revert_resize."""
        return self.client.can_send_version(FINISH_REVERT_VERSION)

    def finish_revert_resize(self, context, instance, migration):
        """The destination of a reverted move removed its VM: give the
        source back its allocations and the old flavor, and start the VM
        there (cast; 1.9)."""
        cctxt = self.client.prepare(version=FINISH_REVERT_VERSION)
        cctxt.cast(context, 'finish_revert_resize', instance=instance,
                   migration=migration)

    # Shelving (1.2): see conductor/tasks/unshelve.py

    def can_send_shelve_offloaded(self):
        """Whether the pin lets this client send shelve_offloaded."""
        return self.client.can_send_version(SHELVE_OFFLOADED_VERSION)

    def shelve_offloaded(self, context, instance):
        """Record ``instance`` (shelving_offloading, its VM removed from
        its host) as offloaded and free its host (call; 1.9). Returns
        the instance as saved; raises UnexpectedTaskStateError or
        InstanceNotFound, writing nothing, if it left the task."""
        cctxt = self.client.prepare(version=SHELVE_OFFLOADED_VERSION)
        return cctxt.call(context, 'shelve_offloaded', instance=instance)

    def can_send_shelve(self):
        """Whether the pin lets this client send the 1.2 unshelve."""
        return self.client.can_send_version(SHELVE_VERSION)

    def unshelve_instance(self, context, instance, availability_zone=None,
                          host=None, request_spec=None, host_list=None):
        """Schedule an offloaded ``instance`` again and start it there from
        its shelved snapshot (cast), in ``availability_zone`` and on
        ``host`` if given (checked by the filters). A compute whose start
        failed hands it back with the ``request_spec`` it got and the
        alternates left (``host_list``)."""
        cctxt = self.client.prepare(version=SHELVE_VERSION)
        cctxt.cast(context, 'unshelve_instance', instance=instance,
                   availability_zone=availability_zone, host=host,
                   request_spec=request_spec, host_list=host_list)

    # Rebuild and evacuate (1.3): see conductor/tasks/rebuild.py and
    # evacuate.py

    def can_send_rebuild(self):
        """Whether the pin lets this client send the 1.3 rebuild."""
        return self.client.can_send_version(REBUILD_VERSION)

    def rebuild_instance(self, context, instance, image_ref,
                         orig_image_ref, new_pass=None,
                         preserve_ephemeral=False, recreate=False,
                         on_shared_storage=None, host=None, migration=None,
                         request_spec=None, host_list=None,
                         target_state=None):
        """Rebuild ``instance`` where it is (a new image is checked by
        the scheduler's rebuild filters first), or with ``recreate``
        evacuate it: to ``host`` if named (checked by the filters), else
        where the scheduler chooses (cast). A target whose claim failed
        hands the evacuation back with its ``migration``,
        ``request_spec`` and the alternates left (``host_list``)."""
        cctxt = self.client.prepare(version=REBUILD_VERSION)
        cctxt.cast(context, 'rebuild_instance', instance=instance,
                   image_ref=image_ref, orig_image_ref=orig_image_ref,
                   new_pass=new_pass, preserve_ephemeral=preserve_ephemeral,
                   recreate=recreate, on_shared_storage=on_shared_storage,
                   host=host, migration=migration, request_spec=request_spec,
                   host_list=host_list, target_state=target_state)

    def complete_evacuation(self, context, migration):
        """The source compute of ``migration`` (an evacuation) came back
        and removed its copy of the VM: free what the instance still
        holds there and mark the migration completed (call). Returns
        True, or False if the migration was already settled."""
        cctxt = self.client.prepare(version=REBUILD_VERSION)
        return cctxt.call(context, 'complete_evacuation',
                          migration=migration)


    # Live migration (1.4): see conductor/tasks/live_migrate.py

    def can_send_live_migration(self):
        """Whether the pin lets this client send live_migrate_instance."""
        return self.client.can_send_version(LIVE_MIGRATION_VERSION)

    def live_migrate_instance(self, context, instance, host=None,
                              block_migration=None, disk_over_commit=None,
                              migration=None, failure=None, wait=False):
        """Live-migrate ``instance``, to ``host`` if given (still checked
        by the filters), else where the scheduler chooses (cast; a call
        with ``wait``, which returns once the source was asked to copy,
        or raises why not: NoValidHost, MigrationPreCheckError).

        ``block_migration`` True, False or None ("auto");
        ``disk_over_commit`` is accepted for the 2.1 API and ignored (the
        placement claim is the check). The source compute reports the
        outcome with the same method: its ``migration``, with ``failure``
        ({'status': 'error' or 'cancelled', 'reason': text}) if the VM
        stayed on the source, None once it runs on the destination.
        """
        cctxt = self.client.prepare(version=LIVE_MIGRATION_VERSION)
        send = cctxt.call if wait else cctxt.cast
        send(context, 'live_migrate_instance', instance=instance, host=host,
             block_migration=block_migration,
             disk_over_commit=disk_over_commit, migration=migration,
             failure=failure)

def make_indirection_api():
    """Route this process's remotable object calls through the conductor."""
    api = ConductorAPI()
    objects_base.NovaLiteObject.indirection_api = api
    return api
