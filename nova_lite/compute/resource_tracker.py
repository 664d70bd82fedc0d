"""The resource tracker: what each node of this compute has and uses.

It keeps, in memory, every node's totals (from the driver) and the
instances counted against it (from the database, through the conductor,
plus builds claimed here and not saved yet). Builds claim through it;
``update_available_resource`` (at start and periodically) recounts,
writes each node's ComputeNode record and reports its inventories and
traits to placement through the conductor.

Usage::

    tracker = ResourceTracker(host, driver)
    tracker.update_available_resource(ctxt, startup=True)
    claim = tracker.instance_claim(ctxt, instance, nodename)
    ...                     # on failure: claim.abort()
    tracker.free_instance(instance)
"""

import collections
import threading

from oslo_log import log as logging

from nova_lite.compute import claims
from nova_lite.compute import migration_usage
from nova_lite.compute import provider_report
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields

LOG = logging.getLogger(__name__)

COMPUTE_BINARY = 'nova-lite-compute'


def _attr(obj, name, default=None):
    return getattr(obj, name) if obj.obj_attr_is_set(name) else default


class ResourceTracker:
    """Per-node accounting and reporting for compute ``host``.

    Thread-safe: builds claim while the periodic update runs. A failure
    on one node is logged and never stops the others.
    """

    def __init__(self, host, driver, conductor_api=None):
        self.host = host
        self.driver = driver
        self._conductor_api = conductor_api
        self._lock = threading.RLock()
        self._update_lock = threading.Lock()
        self._resources = {}          # nodename -> driver resources dict
        self._tracked = {}            # instance uuid -> TrackedInstance
        self._freed = None            # uuids freed during a usage refresh
        self._compute_nodes = {}      # nodename -> ComputeNode
        self._placement_ratios = {}   # nodename -> {rc: ratio} placement has
        self._last_report = {}        # nodename -> what was last reported
        self._disabled = False
        self._service_id = None
        self._failed_builds = {}      # nodename -> consecutive failures
        self._reported_traits = provider_report.ReportedTraitsStore(host)

    @property
    def conductor_api(self):
        # Built on first use: the bus is set up after the manager exists.
        if self._conductor_api is None:
            self._conductor_api = conductor_rpcapi.ConductorAPI()
        return self._conductor_api

    # Claims

    def instance_claim(self, context, instance, nodename):
        """Hold ``instance``'s resources on ``nodename``; return a Claim.

        Raises ComputeResourcesUnavailable, with the reason, when the node
        is not one of this host's or the instance does not fit.
        """
        resources = claims.instance_resources(instance)
        with self._lock:
            totals = self._totals(nodename)
            used = self._usage(nodename, exclude=instance.uuid)
            claims.check_fits(nodename, instance.uuid, resources, totals,
                              used, self._ratios(nodename))
            self._tracked[instance.uuid] = claims.TrackedInstance(
                nodename, resources, _attr(instance, 'vm_state'),
                _attr(instance, 'task_state'), _attr(instance, 'project_id'),
                pending=True)
        LOG.info('Claimed %s on node %s for instance %s',
                 ', '.join('%s=%d' % kv for kv in sorted(resources.items())),
                 nodename, instance.uuid)
        return claims.Claim(self, instance.uuid, nodename, resources)

    def resize_claim(self, context, instance, flavor, migration):
        """Hold ``flavor`` on ``migration.dest_node`` for the move of
        ``instance`` here; return a Claim (abort it if the move stops
        here). Raises ComputeResourcesUnavailable like instance_claim."""
        nodename = migration.dest_node
        key = migration_usage.dest_key(migration.uuid)
        resources = migration_usage.flavor_resources(flavor)
        with self._lock:
            totals = self._totals(nodename)
            used = self._usage(nodename, exclude=key)
            claims.check_fits(nodename, instance.uuid, resources, totals,
                              used, self._ratios(nodename))
            self._tracked[key] = migration_usage.entry(nodename, flavor,
                                                       instance)
        LOG.info('Claimed %s on node %s for the move of instance %s',
                 ', '.join('%s=%d' % kv for kv in sorted(resources.items())),
                 nodename, instance.uuid)
        return claims.Claim(self, key, nodename, resources)

    def move_finished(self, instance, migration):
        """The instance now lives on ``migration.dest_node`` with its new
        flavor: count it as itself rather than as the move's claim."""
        with self._lock:
            self._tracked.pop(migration_usage.dest_key(migration.uuid), None)
            self._tracked[instance.uuid] = migration_usage.entry(
                migration.dest_node, instance.flavor, instance)

    def tracks(self, uuid, nodename):
        """True if instance ``uuid`` is counted (claimed or built) on
        ``nodename``."""
        with self._lock:
            tracked = self._tracked.get(uuid)
        return tracked is not None and tracked.nodename == nodename

    def track_instance(self, instance):
        """Count ``instance`` on its node as it is now (back from a
        reverted move)."""
        with self._lock:
            self._tracked[instance.uuid] = migration_usage.entry(
                instance.node, instance.flavor, instance)

    def free_migration(self, migration):
        """Stop counting what ``migration`` holds on this host (both
        sides); the instance is counted where its record says from the
        next update."""
        with self._lock:
            for key in (migration_usage.source_key(migration.uuid),
                        migration_usage.dest_key(migration.uuid)):
                self._tracked.pop(key, None)
                if self._freed is not None:
                    self._freed.add(key)

    def abort_claim(self, claim):
        """Give back what ``claim`` holds; see Claim.abort."""
        with self._lock:
            tracked = self._tracked.get(claim.instance_uuid)
            if tracked is None or tracked.nodename != claim.nodename:
                return {}
            del self._tracked[claim.instance_uuid]
        LOG.info('Aborted the claim of instance %s on node %s',
                 claim.instance_uuid, claim.nodename)
        return dict(tracked.resources)

    def update_usage(self, context, instance, nodename):
        """Record ``instance``'s new states after its build finished.

        Its entry stops being pending: from now on the database listing
        decides whether it is counted.
        """
        with self._lock:
            tracked = self._tracked.get(instance.uuid)
            if tracked is None or tracked.nodename != nodename:
                return
            self._tracked[instance.uuid] = tracked._replace(
                vm_state=_attr(instance, 'vm_state'),
                task_state=_attr(instance, 'task_state'), pending=False)

    def free_instance(self, instance):
        """Stop counting ``instance``; return True if it was counted."""
        with self._lock:
            tracked = self._tracked.pop(instance.uuid, None)
            if self._freed is not None:
                self._freed.add(instance.uuid)
        if tracked is not None:
            LOG.info('Freed the resources of instance %s on node %s',
                     instance.uuid, tracked.nodename)
        return tracked is not None

    # Build outcomes (the failed_builds stat BuildFailureWeigher reads)

    def build_failed(self, nodename):
        """Count a failed build on ``nodename``; return the node's uuid
        when its record was saved with the new count (None otherwise)."""
        with self._lock:
            count = self._failed_builds.get(nodename, 0) + 1
            self._failed_builds[nodename] = count
        return self._save_stats(nodename)

    def build_succeeded(self, nodename):
        """Reset the node's failed build count; return the node's uuid if
        that changed its saved record (None otherwise)."""
        with self._lock:
            if not self._failed_builds.get(nodename):
                self._failed_builds.setdefault(nodename, 0)
                return None
            self._failed_builds[nodename] = 0
        return self._save_stats(nodename)

    def _save_stats(self, nodename):
        """Write the node's stats now rather than at the next periodic
        update, so schedulers weigh a failing node down at once. Best
        effort: a failure is logged and the periodic update catches up."""
        with self._update_lock:
            node = self._compute_nodes.get(nodename)
            if node is None:
                return None
            stats = self._node_stats(nodename)
            if _attr(node, 'stats') == stats:
                return None
            node.stats = stats
            try:
                node.save()
            except Exception:
                LOG.exception('Saving the stats of node %s failed', nodename)
                return None
        return node.uuid

    def _node_stats(self, nodename):
        with self._lock:
            on_node = _instances_on(self._tracked, nodename)
            failed = self._failed_builds.get(nodename)
        stats = _stats(on_node)
        if failed is not None:
            stats['failed_builds'] = str(failed)
        return stats

    def usage(self, nodename):
        """{resource_class: amount} the counted instances use on a node."""
        with self._lock:
            return self._usage(nodename)

    def _usage(self, nodename, exclude=None):
        used = collections.Counter({rc: 0 for rc in claims.RESOURCE_CLASSES})
        for uuid, tracked in self._tracked.items():
            if tracked.nodename == nodename and uuid != exclude:
                used.update(tracked.resources)
        return dict(used)

    def _totals(self, nodename):
        resources = self._resources.get(nodename)
        if resources is None:
            if nodename not in self.driver.get_available_nodes():
                raise exception.ComputeResourcesUnavailable(
                    reason='node %s is not a node of host %s'
                    % (nodename, self.host))
            # Not reported yet (the start-up report failed): ask now.
            resources = self.driver.get_available_resource(nodename)
            self._resources[nodename] = resources
        return {rc: int(resources.get(key) or 0)
                for rc, key in claims.TOTAL_KEYS.items()}

    def _ratios(self, nodename):
        """{rc: ratio} claims use: forced, else placement's, else the
        node record's, else the initial ratio."""
        forced = claims.forced_ratios()
        initial = claims.initial_ratios()
        placement = self._placement_ratios.get(nodename, {})
        node = self._compute_nodes.get(nodename)
        result = {}
        for rc, field in claims.RATIO_FIELDS.items():
            recorded = _attr(node, field) if node is not None else None
            result[rc] = (forced[rc] or placement.get(rc) or recorded
                          or initial[rc])
        return result

    # Periodic update

    def update_available_resource(self, context, startup=False):
        """Recount every node, save its ComputeNode and report placement.

        The placement report is skipped for a node whose inventories and
        traits have not changed since its last successful report, except
        at ``startup``, which always reports (so traits removed from the
        provider while the compute was down come back). Raises only when
        the instances of this host cannot be listed.
        """
        with self._update_lock:
            nodenames = list(self.driver.get_available_nodes())
            self._refresh_service(context)
            self._refresh_usage(context, set(nodenames))
            if startup:
                self._last_report.clear()
            for nodename in nodenames:
                try:
                    self._update_node(context, nodename, startup)
                except Exception:
                    LOG.exception('Updating node %s of host %s failed',
                                  nodename, self.host)
                    # Start from the records again next time.
                    self._compute_nodes.pop(nodename, None)
                    self._last_report.pop(nodename, None)
            self._forget_nodes(set(nodenames))

    def reset(self):
        """Make the next update report every node, as at start-up.

        Called on SIGHUP: compute-owned traits removed from a provider
        behind the compute's back come back with that report.
        """
        with self._lock:
            self._last_report.clear()

    def _refresh_service(self, context):
        try:
            service = objects.Service.get_by_host_and_binary(
                context, self.host, COMPUTE_BINARY)
        except exception.ServiceNotFound:
            LOG.warning('No %s service record for host %s yet',
                        COMPUTE_BINARY, self.host)
            return
        except Exception:
            LOG.exception('Cannot read the service record of host %s; '
                          'assuming it is still %s', self.host,
                          'disabled' if self._disabled else 'enabled')
            return
        self._disabled = bool(service.disabled)
        self._service_id = service.id

    def _refresh_usage(self, context, nodenames):
        with self._lock:
            self._freed = set()
        try:
            instances = objects.InstanceList.get_by_host(context, self.host)
            moves, moving = migration_usage.tracked(context, self.host,
                                                    nodenames)
        finally:
            with self._lock:
                freed, self._freed = self._freed, None
        with self._lock:
            tracked = {}
            for inst in instances:
                if (inst.uuid in freed or inst.uuid in moving
                        or inst.node not in nodenames):
                    continue
                tracked[inst.uuid] = claims.TrackedInstance(
                    inst.node, claims.instance_resources(inst),
                    inst.vm_state, inst.task_state, inst.project_id,
                    pending=False)
            tracked.update((key, value) for key, value in moves.items()
                           if key not in freed)
            # Builds claimed here whose record does not name this host
            # yet (or was listed before the claim) still hold resources.
            for uuid, entry in self._tracked.items():
                if entry.pending:
                    tracked.setdefault(uuid, entry)
            self._tracked = tracked

    def _update_node(self, context, nodename, startup):
        resources = self.driver.get_available_resource(nodename)
        node_uuid = self.driver.get_node_uuid(nodename)
        driver_traits = frozenset(self.driver.get_traits(nodename))
        with self._lock:
            self._resources[nodename] = resources
        node, is_new = self._get_compute_node(context, nodename, node_uuid)
        self._copy_to_compute_node(node, nodename, resources)
        if is_new:
            node.create()
            LOG.info('Created compute node %s (%s) of host %s', nodename,
                     node_uuid, self.host)
        else:
            node.save()
        with self._lock:
            self._compute_nodes[nodename] = node
        self._report(context, node, resources, driver_traits, startup)

    def _get_compute_node(self, context, nodename, node_uuid):
        """(ComputeNode, is_new) for the node; new ones are not created."""
        node = self._compute_nodes.get(nodename)
        if node is not None and node.uuid == node_uuid:
            return node, False
        try:
            node = objects.ComputeNode.get_by_uuid(context, node_uuid)
        except exception.ComputeNodeNotFound:
            node = None
        if node is not None:
            if (node.host, node.hypervisor_hostname) != (self.host,
                                                         nodename):
                raise exception.ComputeNodeIdentityConflict(
                    node=nodename, host=self.host,
                    reason='its uuid %s is recorded for node %s of host %s'
                    % (node_uuid, node.hypervisor_hostname, node.host))
            return node, False
        self._check_no_other_record(context, nodename, node_uuid)
        return objects.ComputeNode(context, uuid=node_uuid, host=self.host,
                                   hypervisor_hostname=nodename), True

    def _check_no_other_record(self, context, nodename, node_uuid):
        try:
            other = objects.ComputeNode.get_by_host_and_nodename(
                context, self.host, nodename)
        except exception.ComputeNodeNotFound:
            return
        raise exception.ComputeNodeIdentityConflict(
            node=nodename, host=self.host,
            reason='it is recorded with uuid %s but the driver now reports '
                   '%s; restore the driver\'s node identities (under '
                   '[DEFAULT] state_path) or remove the stale record'
                   % (other.uuid, node_uuid))

    def _copy_to_compute_node(self, node, nodename, resources):
        reserved = claims.reserved_amounts()
        with self._lock:
            used = self._usage(nodename)
            on_node = _instances_on(self._tracked, nodename)
        node.vcpus = int(resources['vcpus'])
        node.memory_mb = int(resources['memory_mb'])
        node.local_gb = int(resources['local_gb'])
        # As in Nova, what is reserved for the host counts as used.
        node.vcpus_used = used['VCPU'] + reserved['VCPU']
        node.memory_mb_used = used['MEMORY_MB'] + reserved['MEMORY_MB']
        node.local_gb_used = used['DISK_GB'] + reserved['DISK_GB']
        node.running_vms = len(on_node)
        node.hypervisor_type = resources['hypervisor_type']
        node.hypervisor_version = int(resources['hypervisor_version'])
        node.cpu_info = resources['cpu_info']
        if self._service_id is not None:
            node.service_id = self._service_id
        self._set_ratios(node, nodename)
        stats = self._node_stats(nodename)
        if _attr(node, 'stats') != stats:
            node.stats = stats
        for field in ('metrics', 'pci_device_pools', 'numa_topology'):
            value = resources.get(field)
            if not node.obj_attr_is_set(field) or getattr(node,
                                                          field) != value:
                setattr(node, field, value)

    def _set_ratios(self, node, nodename):
        """Forced ratios win; otherwise keep what the record (or
        placement) has, and start a new record at the initial ratio."""
        forced = claims.forced_ratios()
        initial = claims.initial_ratios()
        placement = self._placement_ratios.get(nodename, {})
        for rc, field in claims.RATIO_FIELDS.items():
            value = (forced[rc] or placement.get(rc) or _attr(node, field)
                     or initial[rc])
            if _attr(node, field) != value:
                setattr(node, field, value)

    def _report(self, context, node, resources, driver_traits, startup):
        inventories = provider_report.inventories(resources)
        traits = provider_report.reported_traits(driver_traits,
                                                 self._disabled)
        owned = provider_report.owned_traits(
            driver_traits, self._reported_traits.get(node.uuid))
        report = (inventories, traits, owned)
        if not startup and self._last_report.get(node.hypervisor_hostname
                                                 ) == report:
            LOG.debug('Node %s unchanged; not reporting',
                      node.hypervisor_hostname)
            return
        result = self.conductor_api.update_compute_provider(
            context, node, inventories, sorted(traits), sorted(owned))
        self._last_report[node.hypervisor_hostname] = report
        self._reported_traits.set(node.uuid, driver_traits)
        self._adopt_ratios(node.hypervisor_hostname, result)
        LOG.info('Reported node %s (%s) to placement: %s; traits %s',
                 node.hypervisor_hostname, node.uuid,
                 ', '.join('%s=%d' % (rc, inv['total'])
                           for rc, inv in sorted(inventories.items())),
                 ', '.join(sorted(traits)))

    def _adopt_ratios(self, nodename, result):
        """Learn the ratios placement holds, when the conductor says.

        If the answer carries the provider's inventories ({rc: {...,
        allocation_ratio}}), claims use those ratios, so a ratio an
        administrator set in placement is honoured here too.
        """
        if not isinstance(result, dict):
            return
        ratios = {}
        for rc in claims.RESOURCE_CLASSES:
            inv = result.get(rc)
            if isinstance(inv, dict) and inv.get('allocation_ratio'):
                ratios[rc] = float(inv['allocation_ratio'])
        with self._lock:
            self._placement_ratios[nodename] = ratios

    def _forget_nodes(self, nodenames):
        with self._lock:
            for gone in set(self._resources) - nodenames:
                LOG.warning('Node %s of host %s is no longer exposed by '
                            'the driver; no longer reporting it', gone,
                            self.host)
                for cache in (self._resources, self._compute_nodes,
                              self._placement_ratios, self._last_report):
                    cache.pop(gone, None)


def _instances_on(tracked, nodename):
    """The entries of instances on a node: what a move holds counts as
    usage, not as another instance."""
    return [t for key, t in tracked.items() if t.nodename == nodename
            and not migration_usage.is_migration_key(key)]


def _stats(tracked_instances):
    """The ComputeNode stats of a node's instances, values as strings.

    num_instances, num_vm_<state>, num_task_<state>, num_proj_<project>
    and io_workload (instances still building or in an I/O-heavy task:
    a move's prep and send, a rebuild, a snapshot, a backup, an
    unshelve), as Nova keeps them.
    """
    stats = collections.Counter(num_instances=0, io_workload=0)
    for entry in tracked_instances:
        stats['num_instances'] += 1
        stats['num_vm_%s' % entry.vm_state] += 1
        stats['num_task_%s' % entry.task_state] += 1
        stats['num_proj_%s' % entry.project_id] += 1
        if (entry.vm_state == fields.VMState.BUILDING
                or entry.task_state in fields.TaskState.IO_HEAVY):
            stats['io_workload'] += 1
    return {key: str(value) for key, value in stats.items()}
