"""What moves in progress hold on this host, for the resource tracker.

While a resize or cold migration is unsettled its instance is counted on
both hosts, as Nova's tracker does: on the source with the old flavor,
on the destination with the new one (a resize to the same host: both
there). Those entries are keyed by migration, not instance, so they are
never confused with the instance's own entry; an instance with a move in
progress is counted only through them, and on the destination, once the
move finished there, as itself. Once the move is confirmed or
reverted the instance is counted where its record says, as any other.
"""

from nova_lite.compute import claims
from nova_lite import exception
from nova_lite import objects

# Statuses of a move that holds resources (see move_records).
ACTIVE_STATUSES = ('pre-migrating', 'migrating', 'post-migrating',
                   'finished', 'confirming', 'reverting')
_PREFIX = 'migration-'


def source_key(migration_uuid):
    return '%ssource-%s' % (_PREFIX, migration_uuid)


def dest_key(migration_uuid):
    return '%sdest-%s' % (_PREFIX, migration_uuid)


def is_migration_key(key):
    return key.startswith(_PREFIX)


def flavor_resources(flavor):
    """{resource_class: amount} of a flavor (claims.instance_resources'
    arithmetic)."""
    swap_gb = (flavor.swap + 1023) // 1024
    return {'VCPU': flavor.vcpus, 'MEMORY_MB': flavor.memory_mb,
            'DISK_GB': flavor.root_gb + flavor.ephemeral_gb + swap_gb}


def entry(nodename, flavor, instance):
    return claims.TrackedInstance(
        nodename, flavor_resources(flavor), instance.vm_state,
        instance.task_state, instance.project_id, pending=False)


def tracked(context, host, nodenames):
    """({key: TrackedInstance} of the moves touching ``host``'s nodes,
    {uuid of each instance they move})."""
    migrations = objects.MigrationList.get_by_filters(
        context, {'host': host, 'status': list(ACTIVE_STATUSES)})
    entries, moving = {}, set()
    for migration in migrations:
        if (migration.obj_attr_is_set('migration_type')
                and migration.migration_type == 'evacuation'):
            # Its target counts the instance through its own claim, and
            # its source (down) nothing: see compute/rebuild.py.
            continue
        try:
            instance = objects.Instance.get_by_uuid(
                context, migration.instance_uuid)
        except exception.InstanceNotFound:
            continue
        moving.add(instance.uuid)
        old = instance.old_flavor or instance.flavor
        new = instance.new_flavor or instance.flavor
        if (migration.source_compute == host
                and migration.source_node in nodenames):
            entries[source_key(migration.uuid)] = entry(
                migration.source_node, old, instance)
        if (migration.dest_compute == host
                and migration.dest_node in nodenames):
            # Once finished, the instance lives here: counted as itself
            # (so its delete frees it) with the new flavor.
            key = (instance.uuid if (instance.host, instance.node) == (
                host, migration.dest_node) else dest_key(migration.uuid))
            entries[key] = entry(migration.dest_node, new, instance)
    return entries, moving
