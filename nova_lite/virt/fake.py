"""The fake virt driver: nodes and VMs that live in memory.

It documents the driver contract by example and lets one compute process
pretend to be a rack: ``[fake_driver] node_count`` nodes, each with its
own size and traits (``[fake_driver] node`` overrides), spawn and destroy
delays, and fault injection (``fail_spawn_nodes``, or the variant classes
at the end of this module). Server operations (reboot, power off and on,
pause, suspend, ...) change the VM's power state after
``operation_delays`` and fail where ``fail_operations`` says. A rebuild
(``rebuild``) waits its ``operation_delays`` entry and fails where
``fail_operations`` names it with the node it runs on (for an
evacuation, the target's); in place it keeps the VM's record, for an
evacuation it creates one on the target node.

Node uuids are generated once and kept in
``$state_path/fake_driver/<host>.json``, so a restarted compute keeps its
resource providers; the VMs are kept there too (``fake_vms``), so they
outlive the compute process as a real hypervisor's guests do.
"""

import dataclasses
import json
import re
import threading
import time

import os_traits
from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.objects import fields
from nova_lite.virt import driver
from nova_lite.virt import fake_diagnostics
from nova_lite.virt import fake_image_cache
from nova_lite.virt import fake_live_migration
from nova_lite.virt import fake_moves
from nova_lite.virt import fake_numa
from nova_lite.virt import fake_vms
from nova_lite.virt import local_state

LOG = logging.getLogger(__name__)

STATE_SUBDIR = 'fake_driver'
INT_KEYS = ('vcpus', 'memory_mb', 'local_gb', 'hypervisor_version',
            'numa_nodes')
STR_KEYS = ('hypervisor_type', 'cpu_arch', 'cpu_model')
OVERRIDE_KEYS = INT_KEYS + STR_KEYS + ('traits', 'metrics', 'pci_devices')
_CUSTOM_TRAIT = re.compile(r'^CUSTOM_[A-Z0-9_]+$')
_PCI_ID = re.compile(r'^[0-9a-fA-F]{4}$')
PCI_DEV_TYPES = ('type-PCI', 'type-PF', 'type-VF')
_STANDARD_TRAITS = frozenset(os_traits.get_traits())
# Server operations -> the power state the VM has after it (None: the one
# it had). [fake_driver] operation_delays and fail_operations name these.
OPERATIONS = {
    'reboot': fields.PowerState.RUNNING,
    'power_off': fields.PowerState.SHUTDOWN,
    'power_on': fields.PowerState.RUNNING,
    'pause': fields.PowerState.PAUSED,
    'unpause': fields.PowerState.RUNNING,
    'suspend': fields.PowerState.SUSPENDED,
    'resume': fields.PowerState.RUNNING,
    # An NMI to the guest (the guest dumps and goes on).
    'trigger_crash_dump': None,
    # Rebuild and evacuate: the power state the compute asks for.
    'rebuild': None,
}
# The moves' steps (fake_moves), which keep the power state they set.
OPERATIONS.update(dict.fromkeys(fake_moves.MOVE_OPERATIONS))
# Snapshots and shelving: a snapshot keeps the power state; an offload
# removes the VM; an unshelve is a spawn on the node it names.
OPERATIONS.update(dict.fromkeys(('snapshot', 'shelve_offload', 'unshelve')))
# The size in bytes a fake snapshot reports per GiB of root disk.
SNAPSHOT_BYTES_PER_GB = 1024 * 1024
OPERATIONS.update(dict.fromkeys(
    fake_live_migration.LIVE_MIGRATION_OPERATIONS))


@dataclasses.dataclass(frozen=True)
class FakeNode:
    """One node as configured: its size, identity and behaviour."""
    index: int
    name: str
    uuid: str
    vcpus: int
    memory_mb: int
    local_gb: int
    hypervisor_type: str
    hypervisor_version: int
    cpu_arch: str
    cpu_model: str
    traits: frozenset
    fail_spawn: bool = False
    numa_nodes: int = 0
    metrics: tuple = ()       # ((name, value), ...)
    pci_devices: tuple = ()   # (pool dict, ...)


@dataclasses.dataclass(frozen=True)
class FakeInstance:
    """A VM the driver runs (a change is a new record: fake_vms)."""
    uuid: str
    node: str
    vcpus: int
    memory_mb: int
    local_gb: int
    power_state: int = fields.PowerState.RUNNING


def _config_error(option, text, reason):
    return exception.ConfigInvalid(
        reason='[fake_driver] %s "%s": %s' % (option, text, reason))


def _check_traits(option, text, names):
    bad = sorted(n for n in names
                 if n not in _STANDARD_TRAITS and not _CUSTOM_TRAIT.match(n))
    if bad:
        raise _config_error(
            option, text, 'not a trait: %s (use os-traits names or CUSTOM_ '
            'followed by capital letters, digits and underscores)'
            % ', '.join(bad))
    return frozenset(names)


def parse_metrics(option, text, items):
    """((name, float), ...) of "name=number" items; ConfigInvalid if one
    is malformed."""
    metrics = []
    for item in items:
        name, sep, value = item.partition('=')
        try:
            number = float(value)
        except ValueError:
            number = None
        if not sep or not name.strip() or number is None:
            raise _config_error(option, text, 'metric "%s" is not '
                                'name=number' % item)
        metrics.append((name.strip(), number))
    return tuple(metrics)


def parse_pci_devices(option, text, items):
    """(pool dict, ...) of "vendor:product:count[:numa_node[:dev_type]]"
    items; ConfigInvalid if one is malformed."""
    pools = []
    for item in items:
        parts = [p.strip() for p in item.split(':')]
        if len(parts) < 3 or len(parts) > 5:
            raise _config_error(option, text, 'PCI pool "%s" is not '
                                'vendor:product:count[:numa_node[:dev_type]]'
                                % item)
        vendor, product, count = parts[:3]
        numa = parts[3] if len(parts) > 3 and parts[3] else None
        dev_type = parts[4] if len(parts) > 4 else 'type-PCI'
        if not (_PCI_ID.match(vendor) and _PCI_ID.match(product)
                and count.isdigit() and (numa is None or numa.isdigit())
                and dev_type in PCI_DEV_TYPES):
            raise _config_error(option, text, 'PCI pool "%s": ids are 4 hex '
                                'digits, count and numa_node integers, '
                                'dev_type one of %s'
                                % (item, ', '.join(PCI_DEV_TYPES)))
        pools.append({'vendor_id': vendor.lower(),
                      'product_id': product.lower(), 'count': int(count),
                      'numa_node': None if numa is None else int(numa),
                      'dev_type': dev_type})
    return tuple(pools)


def _plus_items(value):
    return [n.strip() for n in value.split('+') if n.strip()]


def _parse_value(text, key, value):
    if key == 'metrics':
        return parse_metrics('node', text, _plus_items(value))
    if key == 'pci_devices':
        return parse_pci_devices('node', text, _plus_items(value))
    if key in INT_KEYS:
        try:
            number = int(value)
        except ValueError:
            number = -1
        if number < 0:
            raise _config_error('node', text, '%s must be a non-negative '
                                'integer, not "%s"' % (key, value))
        return number
    if key == 'traits':
        names = [n.strip() for n in value.split('+') if n.strip()]
        return _check_traits('node', text, names)
    if not value:
        raise _config_error('node', text, '%s must not be empty' % key)
    return value


def parse_node_override(text):
    """Parse one ``[fake_driver] node`` value.

    Returns (target, {key: value}) where target is an int index (all
    digits) or a node name. Raises ConfigInvalid naming the option and the
    text when it is malformed.
    """
    target, sep, body = text.partition(':')
    target = target.strip()
    if not sep or not target:
        raise _config_error('node', text, 'expected '
                            '"INDEX_OR_NAME:key=value,key=value"')
    values = {}
    for item in body.split(','):
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition('=')
        key, value = key.strip(), value.strip()
        if not sep:
            raise _config_error('node', text,
                                '"%s" is not key=value' % item)
        if key not in OVERRIDE_KEYS:
            raise _config_error('node', text, 'unknown key "%s" (known: %s)'
                                % (key, ', '.join(OVERRIDE_KEYS)))
        values[key] = _parse_value(text, key, value)
    if not values:
        raise _config_error('node', text, 'no key=value given')
    return (int(target) if target.isdigit() else target), values


def _node_names(host, count):
    template = CONF.fake_driver.node_name_template
    try:
        names = [template % {'host': host, 'index': i} for i in range(count)]
    except (KeyError, ValueError, TypeError) as exc:
        raise _config_error('node_name_template', template,
                            'cannot be formatted (%s); use %%(host)s and '
                            '%%(index)d' % exc)
    if len(set(names)) != len(names):
        raise _config_error('node_name_template', template,
                            'gives several nodes the same name; include '
                            '%(index)d')
    return names


def _resolve_target(option, text, target, names):
    """Index of ``target`` among ``names``, or None if not on this host."""
    if isinstance(target, int):
        if target >= len(names):
            raise _config_error(option, text, 'node index %d is out of '
                                'range: node_count is %d'
                                % (target, len(names)))
        return target
    if target in names:
        return names.index(target)

    # A shared configuration may name nodes of other hosts.
    LOG.info('Ignoring [fake_driver] %s "%s": no node %s on this host',
             option, text, target)
    return None


def _defaults():
    opts = CONF.fake_driver
    return {'vcpus': opts.vcpus, 'memory_mb': opts.memory_mb,
            'local_gb': opts.local_gb,
            'hypervisor_type': opts.hypervisor_type,
            'hypervisor_version': opts.hypervisor_version,
            'cpu_arch': opts.cpu_arch, 'cpu_model': opts.cpu_model,
            'traits': _check_traits('traits', ','.join(opts.traits),
                                    opts.traits),
            'numa_nodes': opts.numa_nodes,
            'metrics': parse_metrics('metrics', ','.join(opts.metrics),
                                     opts.metrics),
            'pci_devices': parse_pci_devices(
                'pci_devices', ','.join(opts.pci_devices), opts.pci_devices)}


def build_nodes(host):
    """The FakeNodes of ``host`` from [fake_driver], without uuids yet."""
    opts = CONF.fake_driver
    names = _node_names(host, opts.node_count)
    settings = [dict(_defaults(), fail_spawn=False) for _ in names]
    for text in opts.node:
        target, values = parse_node_override(text)
        index = _resolve_target('node', text, target, names)
        if index is not None:
            settings[index].update(values)
    for text in opts.fail_spawn_nodes:
        text = text.strip()
        target = int(text) if text.isdigit() else text
        index = _resolve_target('fail_spawn_nodes', text, target, names)
        if index is not None:
            settings[index]['fail_spawn'] = True

    # A bad NUMA shape stops the compute now, not at its first report.
    for values in settings:
        numa_cells(values['vcpus'], values['memory_mb'],
                   values['numa_nodes'])
    return [FakeNode(index=i, name=name, uuid='', **settings[i])
            for i, name in enumerate(names)]


def parse_fail_operations(names):
    """{(operation, node name)} of [fake_driver] fail_operations for the
    nodes ``names``; ConfigInvalid for an unknown operation or node."""
    failing = set()
    for text in CONF.fake_driver.fail_operations:
        operation, sep, target = (p.strip() for p in text.partition(':'))
        if not sep or operation not in OPERATIONS or not target:
            raise _config_error(
                'fail_operations', text, 'not "operation:node" with an '
                'operation among %s' % ', '.join(sorted(OPERATIONS)))
        if target == '*':
            failing.update((operation, name) for name in names)
            continue
        index = _resolve_target('fail_operations', text,
                                int(target) if target.isdigit() else target,
                                names)
        if index is not None:
            failing.add((operation, names[index]))
    return failing


def operation_delay(operation):
    """Seconds [fake_driver] operation_delays gives ``operation``."""
    value = CONF.fake_driver.operation_delays.get(operation)
    try:
        return max(0.0, float(value)) if value else 0.0
    except ValueError:
        raise _config_error('operation_delays', '%s:%s' % (operation, value),
                            'the delay is not a number of seconds')


def _assign_uuids(host, nodes):
    """Give each node its persisted uuid, creating and saving new ones."""
    path = local_state.state_file(STATE_SUBDIR, host)
    data = local_state.load(path)
    known = data.get('nodes', {})
    if not isinstance(known, dict):
        raise exception.ConfigInvalid(
            reason='state file %s: "nodes" is not an object' % path)
    changed = False
    for node in nodes:
        if not uuidutils.is_uuid_like(known.get(node.name)):
            known[node.name] = uuidutils.generate_uuid()
            changed = True
    if changed:
        # Nodes no longer exposed keep their entries: if they come back
        # they come back as the same providers.
        local_state.save(path, {'host': host, 'nodes': known})
    return [dataclasses.replace(n, uuid=known[n.name]) for n in nodes]


def numa_cells(vcpus, memory_mb, count):
    """``count`` NUMA cells sharing the CPUs and RAM evenly (the first
    cells take the remainders), with no usage; None for 0 cells. Their
    shape follows [fake_driver] (see ``fake_numa``)."""
    return fake_numa.numa_cells(vcpus, memory_mb, count)


class FakeDriver(fake_live_migration.LiveMigrationMixin,
                 fake_moves.MovesMixin, fake_diagnostics.DiagnosticsMixin,
                 fake_image_cache.ImageCacheMixin, driver.ComputeDriver):
    """In-memory driver exposing the [fake_driver] nodes.

    ``spawn`` waits ``spawn_delay`` seconds, then raises
    InstanceDeployFailure on a node listed in ``fail_spawn_nodes`` and
    otherwise records a RUNNING instance. ``destroy`` waits
    ``destroy_delay`` and forgets the instance. Each server operation
    (OPERATIONS) waits its ``operation_delays`` entry, raises
    InstanceOperationFailed where ``fail_operations`` names it and
    otherwise sets the VM's power state. Node settings and failures are
    read at ``init_host``; delays at each call.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._host = None
        self._nodes = {}
        self._instances = {}
        self._failing = set()   # (operation, node name)

    def init_host(self, host):
        nodes = _assign_uuids(host, build_nodes(host))
        failing = parse_fail_operations([n.name for n in nodes])
        instances = fake_vms.PersistentVMs(
            fake_vms.host_directory(host, 'vms'), FakeInstance)
        moved_away = fake_vms.PersistentVMs(
            fake_vms.host_directory(host, 'moved'), FakeInstance)
        with self._lock:
            self._host = host
            self._nodes = {node.name: node for node in nodes}
            self._failing = failing
            self._instances = instances
            self._moved_away = moved_away
        LOG.info('Fake driver on %s exposes %d node(s): %s; %d VM(s) '
                 'running from before', host, len(nodes),
                 ', '.join(n.name for n in nodes), len(instances))

    def node(self, nodename):
        """The FakeNode called ``nodename``; ComputeNodeNotFound if none."""
        try:
            return self._nodes[nodename]
        except KeyError:
            raise exception.ComputeNodeNotFound(node=nodename)

    def get_available_nodes(self):
        return list(self._nodes)

    def get_node_uuid(self, nodename):
        return self.node(nodename).uuid

    def get_available_resource(self, nodename):
        node = self.node(nodename)
        with self._lock:
            on_node = [i for i in self._instances.values()
                       if i.node == nodename]
        cpu_info = {'arch': node.cpu_arch, 'model': node.cpu_model,
                    'vendor': 'fake',
                    'topology': {'sockets': 1, 'cores': node.vcpus,
                                 'threads': 1}}
        return {
            'vcpus': node.vcpus,
            'memory_mb': node.memory_mb,
            'local_gb': node.local_gb,
            'vcpus_used': sum(i.vcpus for i in on_node),
            'memory_mb_used': sum(i.memory_mb for i in on_node),
            'local_gb_used': sum(i.local_gb for i in on_node),
            'running_vms': len(on_node),
            'hypervisor_type': node.hypervisor_type,
            'hypervisor_version': node.hypervisor_version,
            'hypervisor_hostname': node.name,
            'cpu_info': json.dumps(cpu_info, sort_keys=True),
            'metrics': dict(node.metrics) or None,
            'pci_device_pools': [dict(p) for p in node.pci_devices] or None,
            'numa_topology': numa_cells(node.vcpus, node.memory_mb,
                                        node.numa_nodes),
        }

    def get_traits(self, nodename):
        return set(self.node(nodename).traits)

    def spawn(self, context, instance, image_meta, nodename):
        node = self.node(nodename)
        if CONF.fake_driver.spawn_delay:
            time.sleep(CONF.fake_driver.spawn_delay)
        self._check_spawn(instance, node)
        record = self._new_record(instance, instance.flavor, nodename)
        with self._lock:
            self._instances[instance.uuid] = record
        LOG.debug('Spawned instance %s on node %s', instance.uuid, nodename)

    @staticmethod
    def _new_record(instance, flavor, nodename):
        # Disk as placement counts it: swap (MiB) rounds up to whole GiB.
        local_gb = (flavor.root_gb + flavor.ephemeral_gb
                    + (flavor.swap + 1023) // 1024)
        return FakeInstance(
            uuid=instance.uuid, node=nodename, vcpus=flavor.vcpus,
            memory_mb=flavor.memory_mb, local_gb=local_gb)

    def _check_spawn(self, instance, node):
        """Raise the failure injected for this spawn, if any."""
        if node.fail_spawn:
            raise exception.InstanceDeployFailure(
                instance_uuid=instance.uuid,
                reason='fault injection: [fake_driver] fail_spawn_nodes '
                       'includes node %s' % node.name)

    def destroy(self, context, instance):
        if CONF.fake_driver.destroy_delay:
            time.sleep(CONF.fake_driver.destroy_delay)
        with self._lock:
            gone = self._instances.pop(instance.uuid, None)
        if gone is None:
            LOG.debug('Instance %s is not on this host; nothing to destroy',
                      instance.uuid)
        else:
            LOG.info('Destroyed instance %s on node %s', instance.uuid,
                     gone.node)

    def get_info(self, instance):
        with self._lock:
            record = self._instances.get(instance.uuid)
        if record is None:
            raise exception.InstanceNotFound(instance_id=instance.uuid)
        return record.power_state

    def list_instance_uuids(self):
        with self._lock:
            return list(self._instances)

    # -- server operations ----------------------------------------------

    def _operate(self, operation, instance):
        """Wait, fail if told to, then set the VM's power state."""
        delay = operation_delay(operation)
        if delay:
            time.sleep(delay)
        with self._lock:
            record = self._instances.get(instance.uuid)
            if record is None:
                raise exception.InstanceNotFound(instance_id=instance.uuid)
            if (operation, record.node) in self._failing:
                raise exception.InstanceOperationFailed(
                    operation=operation, instance_uuid=instance.uuid,
                    reason='fault injection: [fake_driver] fail_operations '
                           'includes %s:%s' % (operation, record.node))
            if OPERATIONS[operation] is not None:
                record = dataclasses.replace(
                    record, power_state=OPERATIONS[operation])
                self._instances[instance.uuid] = record
        LOG.debug('%s of instance %s on node %s done', operation,
                  instance.uuid, record.node)

    def reboot(self, context, instance, reboot_type):
        self._operate('reboot', instance)

    def power_off(self, context, instance):
        self._operate('power_off', instance)

    def power_on(self, context, instance):
        self._operate('power_on', instance)

    def trigger_crash_dump(self, context, instance):
        self._operate('trigger_crash_dump', instance)

    def pause(self, context, instance):
        self._operate('pause', instance)

    def unpause(self, context, instance):
        self._operate('unpause', instance)

    def suspend(self, context, instance):
        self._operate('suspend', instance)

    def resume(self, context, instance):
        self._operate('resume', instance)

    def rebuild(self, context, instance, image_meta, nodename, recreate,
                power_on):
        power = (fields.PowerState.RUNNING if power_on
                 else fields.PowerState.SHUTDOWN)
        if not recreate:
            self._operate('rebuild', instance)
            with self._lock:
                self._instances[instance.uuid] = dataclasses.replace(
                    self._instances[instance.uuid], power_state=power)
            return
        node = self.node(nodename)
        delay = operation_delay('rebuild')
        if delay:
            time.sleep(delay)
        if ('rebuild', node.name) in self._failing:
            raise exception.InstanceOperationFailed(
                operation='rebuild', instance_uuid=instance.uuid,
                reason='fault injection: [fake_driver] fail_operations '
                       'includes rebuild:%s' % node.name)
        record = dataclasses.replace(
            self._new_record(instance, instance.flavor, nodename),
            power_state=power)
        with self._lock:
            self._instances[instance.uuid] = record
        LOG.debug('Recreated instance %s on node %s', instance.uuid,
                  nodename)

    # -- snapshots and shelving -----------------------------------------

    def snapshot(self, context, instance, image_id):
        self._operate('snapshot', instance)
        LOG.debug('Snapshot of instance %s saved as image %s',
                  instance.uuid, image_id)
        return max(1, instance.flavor.root_gb) * SNAPSHOT_BYTES_PER_GB

    def shelve_offload(self, context, instance):
        with self._lock:
            record = self._instances.get(instance.uuid)
        if record is None:
            return
        self._operate('shelve_offload', instance)
        self.destroy(context, instance)

    def unshelve(self, context, instance, image_meta, nodename):
        self.node(nodename)
        self._inject('unshelve', instance, nodename)
        self.spawn(context, instance, image_meta, nodename)


class SpawnFailsFakeDriver(FakeDriver):
    """Fault injection: every spawn raises InstanceDeployFailure."""

    def _check_spawn(self, instance, node):
        raise exception.InstanceDeployFailure(
            instance_uuid=instance.uuid,
            reason='fault injection: SpawnFailsFakeDriver fails every '
                   'spawn (node %s)' % node.name)


class FirstNodeUnreachableFakeDriver(FakeDriver):
    """Fault injection: node index 0 cannot be reached.

    Its resources and spawns raise HypervisorUnavailable; the other nodes
    work, which exercises the per-node isolation of resource reporting.
    """

    def _unreachable(self, nodename):
        if self.node(nodename).index == 0:
            raise exception.HypervisorUnavailable(host=nodename)

    def get_available_resource(self, nodename):
        self._unreachable(nodename)
        return super().get_available_resource(nodename)

    def _check_spawn(self, instance, node):
        self._unreachable(node.name)
        super()._check_spawn(instance, node)
