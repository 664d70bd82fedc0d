"""Claims: a compute's hold on a node's resources for one instance.

The scheduler already claimed the instance's allocation in placement; the
compute's claim is the node's own check, against what the driver says the
node has now and what this host is running, made before it spends time
spawning.
"""

import collections
import math

from nova_lite.conf import CONF
from nova_lite import exception

RESOURCE_CLASSES = ('VCPU', 'MEMORY_MB', 'DISK_GB')

# Driver resource keys of each resource class's total.
TOTAL_KEYS = {'VCPU': 'vcpus', 'MEMORY_MB': 'memory_mb',
              'DISK_GB': 'local_gb'}

# ComputeNode fields holding each resource class's allocation ratio.
RATIO_FIELDS = {'VCPU': 'cpu_allocation_ratio',
                'MEMORY_MB': 'ram_allocation_ratio',
                'DISK_GB': 'disk_allocation_ratio'}


def instance_resources(instance):
    """{resource_class: amount} ``instance`` uses.

    The same arithmetic as RequestSpec.resources, so the compute checks
    what the scheduler claimed: swap (MiB) counts as whole GiB of disk.
    """
    flavor = instance.flavor
    swap_gb = (flavor.swap + 1023) // 1024
    return {'VCPU': flavor.vcpus, 'MEMORY_MB': flavor.memory_mb,
            'DISK_GB': flavor.root_gb + flavor.ephemeral_gb + swap_gb}


def reserved_amounts():
    """{resource_class: amount} kept for the host ([DEFAULT] reserved_*)."""
    return {'VCPU': CONF.reserved_host_cpus,
            'MEMORY_MB': CONF.reserved_host_memory_mb,
            'DISK_GB': int(math.ceil(CONF.reserved_host_disk_mb / 1024.0))}


def forced_ratios():
    """{resource_class: ratio or None} forced by [DEFAULT] *_ratio.

    0.0 counts as unset, as in Nova, where it once meant "the default".
    """
    values = {'VCPU': CONF.cpu_allocation_ratio,
              'MEMORY_MB': CONF.ram_allocation_ratio,
              'DISK_GB': CONF.disk_allocation_ratio}
    return {rc: (value or None) for rc, value in values.items()}


def initial_ratios():
    """{resource_class: ratio} of a new node ([DEFAULT] initial_*)."""
    return {'VCPU': CONF.initial_cpu_allocation_ratio,
            'MEMORY_MB': CONF.initial_ram_allocation_ratio,
            'DISK_GB': CONF.initial_disk_allocation_ratio}


def capacity(total, reserved, ratio):
    """What a node can hold of a class: placement's own formula."""
    return int((total - min(reserved, total)) * ratio)


def check_fits(nodename, instance_uuid, resources, totals, used, ratios):
    """Raise ComputeResourcesUnavailable unless ``resources`` fit the node.

    ``totals``, ``used`` and ``ratios`` are {resource_class: value}; a
    class fits when used + amount <= (total - reserved) * ratio and the
    amount alone is at most the total (placement's max_unit). The message
    names every class that does not fit and why.
    """
    reserved = reserved_amounts()
    problems = []
    for rc, amount in sorted(resources.items()):
        if not amount:
            continue
        total = totals.get(rc, 0)
        cap = capacity(total, reserved[rc], ratios[rc])
        if amount > total:
            problems.append('%s: %d requested, more than the node total %d'
                            % (rc, amount, total))
        elif used.get(rc, 0) + amount > cap:
            problems.append(
                '%s: %d requested, %d free (total %d, reserved %d, '
                'allocation ratio %s, %d in use)'
                % (rc, amount, max(cap - used.get(rc, 0), 0), total,
                   min(reserved[rc], total), ratios[rc], used.get(rc, 0)))
    if problems:
        raise exception.ComputeResourcesUnavailable(
            reason='node %s cannot take instance %s: %s'
            % (nodename, instance_uuid, '; '.join(problems)))


TrackedInstance = collections.namedtuple(
    'TrackedInstance', ('nodename', 'resources', 'vm_state', 'task_state',
                        'project_id', 'pending'))
TrackedInstance.__doc__ = """An instance counted against a node.

``pending`` is True from a claim until the build finishes: such an entry
is kept even when the database does not list the instance on this host
yet.
"""


class Claim:
    """The resources one instance holds on one node while it builds.

    Returned by ``ResourceTracker.instance_claim``. Used as a context
    manager, an exception leaving the block aborts it. ``abort()`` gives
    the resources back and returns {resource_class: amount}; aborting
    twice, or after the instance was freed, returns {}.
    """

    def __init__(self, tracker, instance_uuid, nodename, resources):
        self.tracker = tracker
        self.instance_uuid = instance_uuid
        self.nodename = nodename
        self.resources = dict(resources)

    def abort(self):
        return self.tracker.abort_claim(self)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, tb):
        if exc_type is not None:
            self.abort()
        return False
