"""The virt driver contract: what a compute asks of its hypervisor.

A driver manages one or more *nodes* (resource providers) for one compute
host and the VMs on them. The compute manager and resource tracker use
only the methods below; ``nova_lite.virt.fake.FakeDriver`` is the
reference implementation and the one nova_lite ships.

Usage::

    driver = load_compute_driver()          # [DEFAULT] compute_driver
    driver.init_host(CONF.host)
    for node in driver.get_available_nodes():
        resources = driver.get_available_resource(node)
"""

from oslo_log import log as logging
from oslo_utils import importutils

from nova_lite.conf import CONF
from nova_lite import exception

LOG = logging.getLogger(__name__)

# Short driver names ("fake.FakeDriver") are looked up below this package.
DRIVER_PACKAGE = 'nova_lite.virt'


class ComputeDriver:
    """Base class and contract of every virt driver.

    Drivers are called from several threads at once (builds run in
    parallel with the periodic resource report), so their state must be
    protected by the driver itself. Failures are raised as
    ``nova_lite.exception`` classes; the manager turns them into instance
    faults.
    """

    def init_host(self, host):
        """Prepare the driver to serve compute ``host``.

        Called once, before any other method, by the compute manager at
        service start. Raises on an unusable configuration (for example
        ConfigInvalid) so the service refuses to start.
        """
        raise NotImplementedError()

    def cleanup_host(self, host):
        """Release what init_host acquired; called at service stop."""

    def get_available_nodes(self):
        """Return the names of the nodes this host exposes, as a list.

        Names are also the ``hypervisor_hostname`` of the ComputeNode
        records and the names of the resource providers.
        """
        raise NotImplementedError()

    def get_node_uuid(self, nodename):
        """Return the uuid (string) of ``nodename``.

        The uuid is the node's identity and its resource provider uuid: it
        must be the same on every call and across restarts of the service.
        Raises ComputeNodeNotFound for a node this driver does not expose.
        """
        raise NotImplementedError()

    def get_available_resource(self, nodename):
        """Return what ``nodename`` has, as a dict.

        Keys: ``vcpus``, ``memory_mb``, ``local_gb`` (totals, ints),
        ``hypervisor_type`` (str), ``hypervisor_version`` (int),
        ``hypervisor_hostname`` (the node name), ``cpu_info`` (a JSON
        string with ``arch``, ``model`` and ``topology`` {sockets, cores,
        threads}). A driver that knows its current usage adds
        ``vcpus_used``, ``memory_mb_used``, ``local_gb_used`` and
        ``running_vms``; the resource tracker counts usage from instances
        itself and treats these as information only. Optional keys the
        scheduler's filters read: ``metrics`` ({name: number}),
        ``pci_device_pools`` ([{vendor_id, product_id, count, numa_node,
        dev_type}], count being the devices of the pool in all) and
        ``numa_topology`` ([{id, cpus: [int], memory_mb, pinned_cpus: [],
        cpu_usage: 0, memory_usage: 0}], the node's NUMA cells, each
        optionally with ``cpuset`` and ``pcpuset`` (host CPUs for shared
        and for pinned guest CPUs; without them ``cpus`` serve both),
        ``siblings`` ([[int]], thread sibling sets), ``mempages``
        ([{size_kb, total, used: 0, reserved}]) and ``socket``; the
        scheduler works out their usage from the instances).
        Raises ComputeNodeNotFound for an unknown node and
        HypervisorUnavailable when the node cannot be reached.
        """
        raise NotImplementedError()

    def get_traits(self, nodename):
        """Return the capability traits ``nodename`` supports, as a set.

        Names are standard os-traits names (``COMPUTE_*``, ``HW_CPU_*``,
        ...) or ``CUSTOM_*``. The compute owns these traits on the node's
        provider: it adds what is returned here and removes what it
        reported before and no longer returns.
        """
        raise NotImplementedError()

    def spawn(self, context, instance, image_meta, nodename):
        """Create and start ``instance`` on ``nodename``.

        ``image_meta`` is the ImageMeta of the request (may be None).
        Returns None once the VM runs. Raises (InstanceDeployFailure or
        any other exception) on failure, after cleaning up whatever it
        created, so the build can be rescheduled elsewhere.
        """
        raise NotImplementedError()

    def destroy(self, context, instance):
        """Stop and remove ``instance`` from this host.

        Idempotent: destroying an instance the driver does not have is not
        an error and returns None. Raises only when a VM that exists could
        not be removed.
        """
        raise NotImplementedError()

    def get_info(self, instance):
        """Return the power state of ``instance``.

        An int of ``nova_lite.objects.fields.PowerState``. Raises
        InstanceNotFound when the driver does not have the instance.
        """
        raise NotImplementedError()

    def list_instance_uuids(self):
        """Return the uuids of every instance on this host, as a list."""
        raise NotImplementedError()

    # Server actions. Each returns None once done and raises
    # InstanceNotFound when the driver does not have the instance, or
    # another nova_lite exception when the operation failed (the VM then
    # keeps the power state it had).

    def reboot(self, context, instance, reboot_type):
        """Reboot ``instance``: ``reboot_type`` 'SOFT' asks the guest,
        'HARD' power-cycles it. It runs afterwards."""
        raise NotImplementedError()

    def power_off(self, context, instance):
        """Stop ``instance``; it keeps its resources on this host."""
        raise NotImplementedError()

    def power_on(self, context, instance):
        """Start a stopped ``instance``."""
        raise NotImplementedError()

    def trigger_crash_dump(self, context, instance):
        """Send ``instance`` a non-maskable interrupt, so that its kernel
        dumps its memory (microversion 2.17); it keeps running."""
        raise NotImplementedError()

    def pause(self, context, instance):
        """Freeze ``instance`` in memory."""
        raise NotImplementedError()

    def unpause(self, context, instance):
        """Unfreeze a paused ``instance``."""
        raise NotImplementedError()

    def suspend(self, context, instance):
        """Save ``instance``'s memory to disk and stop it."""
        raise NotImplementedError()

    def resume(self, context, instance):
        """Restore a suspended ``instance``."""
        raise NotImplementedError()

    # Moves (resize, cold migration): the destination prepares, the
    # source sends the VM away (keeping a copy), the destination starts
    # it; then confirm removes the source copy, or revert destroys the
    # destination's VM (``destroy``) and starts the source copy again.

    def prepare_for_move(self, context, instance, flavor, nodename):
        """Check that ``nodename`` can take ``instance`` with ``flavor``
        (destination); raise if it cannot."""
        raise NotImplementedError()

    def migrate_disk_and_power_off(self, context, instance, flavor,
                                   dest_host, dest_node):
        """Power ``instance`` off and send its disk to ``dest_host``
        (source); its copy here stays until confirmed or reverted."""
        raise NotImplementedError()

    def finish_migration(self, context, instance, flavor, nodename,
                         power_on):
        """Create ``instance`` with ``flavor`` on ``nodename``
        (destination), running if ``power_on``."""
        raise NotImplementedError()

    def confirm_migration(self, context, instance, nodename):
        """Remove the source copy of a confirmed move (source).
        Idempotent: no copy is not an error."""
        raise NotImplementedError()

    def list_moved_away_uuids(self):
        """The uuids of the instances whose source copy this host keeps
        (moved away by ``migrate_disk_and_power_off``, not yet removed
        by ``confirm_migration`` nor started again by
        ``finish_revert_migration``), as a list. None by default."""
        return []

    def finish_revert_migration(self, context, instance, nodename,
                                power_on):
        """Start the source copy again after a revert (source), running
        if ``power_on``."""
        raise NotImplementedError()

    # Rebuild and evacuate

    def rebuild(self, context, instance, image_meta, nodename, recreate,
                power_on):
        """Rebuild ``instance`` on ``nodename`` from ``image_meta`` (an
        ImageMeta), running if ``power_on``. In place (``recreate``
        False) the VM must exist here (InstanceNotFound otherwise) and
        keeps its resources; with ``recreate`` (an evacuation) the VM is
        created here, its old host being down. Raise on failure; a
        recreate that raised leaves nothing here to clean up."""
        raise NotImplementedError()

    # Diagnostics (GET /servers/{id}/diagnostics) and the host's uptime.
    # A driver without them leaves NotImplementedError (the API's 501).

    def get_diagnostics(self, instance):
        """The running ``instance``'s diagnostics in the driver's own
        terms: a flat dict of names to numbers (shown below microversion
        2.48)."""
        raise NotImplementedError()

    def get_instance_diagnostics(self, instance):
        """The running ``instance``'s diagnostics in Nova's standard
        fields (microversion 2.48): a dict with state, driver, hypervisor,
        hypervisor_os, uptime (seconds), config_drive, num_cpus,
        num_disks, num_nics, memory_details {maximum, used} (MiB), and
        the lists cpu_details [{id, time, utilisation}], disk_details
        [{read_bytes, read_requests, write_bytes, write_requests,
        errors_count}] and nic_details [{mac_address, rx_octets, rx_errors,
        rx_drop, rx_packets, rx_rate, tx_octets, tx_errors, tx_drop,
        tx_packets, tx_rate}]; a value the driver cannot know is None."""
        raise NotImplementedError()

    def get_host_uptime(self):
        """This host's uptime line, in the format of the ``uptime``
        command (" 08:32:11 up 93 days, 18:25, 12 users,  load average:
        0.20, 0.12, 0.14")."""
        raise NotImplementedError()

    def cache_image(self, context, image_id):
        """Fetch image ``image_id`` into this host's image cache ahead of
        the servers that will boot from it (the aggregate image pre-cache
        of microversion 2.81). Returns True if it was fetched now, False
        if it was cached already; raises what the fetch raised."""
        raise NotImplementedError()

    # Snapshots and shelving. The image record is the registry's; the
    # driver only produces the data.

    def snapshot(self, context, instance, image_id):
        """Copy ``instance``'s root disk into image ``image_id`` (the VM
        keeps running as it was). Returns the image's size in bytes."""
        raise NotImplementedError()

    def shelve_offload(self, context, instance):
        """Remove a shelved (powered off, snapshotted) ``instance`` from
        this host. Idempotent, as ``destroy``."""
        raise NotImplementedError()

    def unshelve(self, context, instance, image_meta, nodename):
        """Create and start ``instance`` on ``nodename`` from its shelved
        snapshot ``image_meta``; raise (after cleaning up) on failure, so
        the unshelve can go to an alternate."""
        raise NotImplementedError()

    # Live migration (Nova's protocol): the destination checks and
    # prepares, the source copies the running VM there, then the
    # destination takes it over, or drops what it prepared on a failure.

    def check_can_live_migrate_destination(self, context, instance,
                                           nodename, block_migration):
        """Check that ``nodename`` (destination) can take ``instance``
        live; ``block_migration`` None means "auto". Returns the migrate
        data (a dict: ``block_migration`` as decided, ``dest_node``);
        raises if it cannot."""
        raise NotImplementedError()

    def pre_live_migration(self, context, instance, nodename,
                           migrate_data):
        """Prepare ``nodename`` (destination) to receive ``instance``."""
        raise NotImplementedError()

    def live_migration(self, context, instance, dest_host, migrate_data):
        """Copy the running ``instance`` to ``dest_host`` (source) and
        return once it runs there and no longer here. Raises
        LiveMigrationAborted if ``live_migration_abort`` stopped it (the
        VM still runs here), anything else on a failure (likewise)."""
        raise NotImplementedError()

    def live_migration_abort(self, instance):
        """Stop the running live migration of ``instance`` (source);
        NoActiveLiveMigration if none runs."""
        raise NotImplementedError()

    def live_migration_force_complete(self, instance):
        """Make the running live migration of ``instance`` finish now
        (source); NoActiveLiveMigration if none runs."""
        raise NotImplementedError()

    def post_live_migration_at_destination(self, context, instance,
                                           nodename):
        """``instance`` now runs on ``nodename`` (destination)."""
        raise NotImplementedError()

    def rollback_live_migration_at_destination(self, context, instance,
                                               nodename):
        """Drop what ``pre_live_migration`` prepared (destination)."""
        raise NotImplementedError()


def load_compute_driver(name=None):
    """Instantiate the driver named by ``name`` or [DEFAULT] compute_driver.

    ``name`` is a class path below ``nova_lite.virt`` ("fake.FakeDriver")
    or a full dotted class path. Raises ConfigInvalid when the class cannot
    be imported or is not a ComputeDriver.
    """
    name = name or CONF.compute_driver
    candidates = [name]
    if not name.startswith(DRIVER_PACKAGE + '.'):
        candidates.insert(0, '%s.%s' % (DRIVER_PACKAGE, name))
    driver_class = None
    errors = []
    for path in candidates:
        try:
            driver_class = importutils.import_class(path)
            break
        except (ImportError, ValueError, AttributeError) as exc:
            errors.append('%s: %s' % (path, exc))
    if driver_class is None:
        raise exception.ConfigInvalid(
            reason='[DEFAULT] compute_driver %r cannot be loaded (%s)'
            % (name, '; '.join(errors)))
    if not (isinstance(driver_class, type)
            and issubclass(driver_class, ComputeDriver)):
        raise exception.ConfigInvalid(
            reason='[DEFAULT] compute_driver %r is not a ComputeDriver'
            % name)
    LOG.info('Loading compute driver %s', driver_class.__name__)
    return driver_class()
