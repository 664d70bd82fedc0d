"""ComputeCapabilitiesFilter: flavor extra specs against host capabilities."""

import functools
import json

from oslo_log import log as logging

from nova_lite.scheduler.filters import extra_specs_ops
from nova_lite.scheduler.filters import rules
from nova_lite.scheduler import utils

LOG = logging.getLogger(__name__)

SCOPE = 'capabilities'

# The host attributes a capability path may start with: those Nova's
# extra spec validation names for this filter (ComputeNode and HostState
# fields). Any other name is looked up in the host's ``stats`` only, so a
# path never walks into the scheduler's own state (``service``,
# ``service_up``, methods).
HOST_CAPABILITIES = frozenset((
    'id', 'uuid', 'service_id', 'host', 'vcpus', 'memory_mb', 'local_gb',
    'vcpus_used', 'memory_mb_used', 'local_gb_used', 'hypervisor_type',
    'hypervisor_version', 'hypervisor_hostname', 'free_ram_mb',
    'free_disk_gb', 'current_workload', 'running_vms',
    'disk_available_least', 'host_ip', 'mapped', 'cpu_allocation_ratio',
    'ram_allocation_ratio', 'disk_allocation_ratio', 'total_usable_ram_mb',
    'total_usable_disk_gb', 'disk_mb_used', 'free_disk_mb', 'vcpus_total',
    'num_instances', 'num_io_ops', 'failed_builds', 'aggregates',
    'cell_uuid', 'updated', 'cpu_info', 'metrics', 'stats', 'numa_topology',
    'supported_hv_specs', 'pci_device_pools', 'nodename', 'pci_stats',
    'supported_instances', 'limits', 'instances'))

# hw:maxphysaddr_bits=N is a requirement on the host's CPU, as Nova reads
# it: capabilities:cpu_info:maxphysaddr:bits ">= N".
MAXPHYSADDR_KEY = 'hw:maxphysaddr_bits'
_MAXPHYSADDR_PATH = ('cpu_info', 'maxphysaddr', 'bits')


def _host_attr(host_state, name):
    """The capability ``name`` of the host object: a named capability
    attribute, else its ``stats`` entry, else None."""
    value = (getattr(host_state, name, None)
             if name in HOST_CAPABILITIES else None)
    if value is None:
        stats = getattr(host_state, 'stats', None) or {}
        value = stats.get(name)
    return value


def _step(cap, name, host_state):
    """One step of a capability path: into JSON text, a dict, or the
    host itself."""
    if cap is host_state:
        return _host_attr(host_state, name)
    if isinstance(cap, str):
        try:
            cap = json.loads(cap)
        except ValueError:
            return None
    if isinstance(cap, dict):
        return cap.get(name)
    return getattr(cap, name, None)


def get_capability(host_state, path):
    """The capability ``path`` (a list of names) designates, or None."""
    cap = host_state
    for name in path:
        cap = _step(cap, name, host_state)
        if cap is None:
            return None
    return cap


def _applies(host_state, key):
    """Whether an unscoped key names a capability of this host (checked
    then for backward compatibility; it clashes with
    AggregateInstanceExtraSpecsFilter, as the seed warns)."""
    return _host_attr(host_state, key) is not None or (
        key in HOST_CAPABILITIES and hasattr(host_state, key))


def _requirement(key, req):
    """(path, requirement) extra spec ``key`` asks of a host, or None
    when this filter does not check it."""
    scope, sep, rest = key.partition(':')
    if not sep:
        return [key], req
    if scope == SCOPE:
        return rest.split(':'), req
    if key == MAXPHYSADDR_KEY:
        return list(_MAXPHYSADDR_PATH), '>= %s' % req
    return None


def _requirements(host_state, items):
    """(key, path, requirement) of the extra specs (``items``: (key,
    requirement) pairs) this filter checks."""
    for key, req in items:
        found = _requirement(key, req)
        if found is None:
            continue
        path, req = found
        if ':' not in key and not _applies(host_state, key):
            continue
        yield key, path, req


def _checked(key):
    """Whether this filter may read extra spec ``key``."""
    scope, sep, _rest = key.partition(':')
    return not sep or scope == SCOPE or key == MAXPHYSADDR_KEY


def capability_key(keys, host_state):
    """What ``failure`` reads of a host for extra specs ``keys``:
    per key, whether an unscoped one applies and the capability as
    text."""
    key = []
    for name in keys:
        path, _req = _requirement(name, '')
        applies = ':' in name or _applies(host_state, name)
        cap = get_capability(host_state, path) if applies else None
        key.append((applies, None if cap is None else str(cap)))
    return tuple(key)


class ComputeCapabilitiesFilter(rules.RuleFilter):
    """Passes hosts whose capabilities satisfy every flavor extra spec in
    the ``capabilities:`` scope (and every unscoped one naming a host
    attribute or stat).

    The key after the scope is a path: ``capabilities:hypervisor_type``
    reads ``host_state.hypervisor_type`` (or ``stats['hypervisor_type']``
    when the host has no such attribute); ``capabilities:cpu_info:arch``
    walks into the ``cpu_info`` JSON. A path starts at one of the
    host capabilities Nova names (``HOST_CAPABILITIES``) or else at a
    ``stats`` entry, never at other host attributes. The value is a
    requirement with an operator (see ``extra_specs_ops``), matched
    against the capability as a string. A capability the host lacks fails
    the host. ``hw:maxphysaddr_bits=N`` is checked as
    ``capabilities:cpu_info:maxphysaddr:bits`` ``>= N``, as in Nova;
    other scopes (``hw:``, ``trait:``,
    ``aggregate_instance_extra_specs:``...) are ignored. Rejection reason:
    "fail <key>=<requirement>".
    """

    # The flavor and the host's capabilities do not change within a
    # request (as in Nova, even the numeric ones).
    run_filter_once_per_request = True

    RUN_ON_REBUILD = False

    def parse_request(self, spec_obj):
        """(sorted keys, (key, requirement) pairs in the flavor's order)
        of the extra specs this filter may read."""
        specs = utils.extra_specs(spec_obj)
        items = tuple((key, req) for key, req in specs.items()
                      if _checked(key))
        if not items:
            return rules.EVERY_HOST
        return tuple(sorted(key for key, _req in items)), items

    def failure(self, host_state, request):
        _keys, items = request
        for key, path, req in _requirements(host_state, items):
            cap = get_capability(host_state, path)
            if cap is None or not extra_specs_ops.match(str(cap), req):
                LOG.debug('%s fails extra spec %s=%s (has %s)', host_state,
                          key, req, cap)
                return 'fail %s=%s' % (key, req)
        return None

    def partition(self, request):
        keys, _items = request
        return (('capabilities', keys),
                functools.partial(capability_key, keys))

    def cache_key(self, request):
        _keys, items = request
        return tuple(sorted(items))
