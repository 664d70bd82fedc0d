"""SQLAlchemy models of nova_lite's one database.

Three families of tables:

* compute: services, compute_nodes, flavors, images, instances, instance
  faults and request specs, as in Nova;
* placement: resource providers with generations, inventories, allocations,
  consumers, traits and provider aggregates, as in OpenStack Placement;
* quotas: limits per project, user and class, usages and reservations;
* host aggregates and server groups;
* a server's life: key pairs, instance actions and their events,
  migrations.

Instances, key pairs and migrations are soft-deleted (``deleted`` is 0
while live and the row id once deleted, so unique constraints can include
it); everything else is deleted for real. Changing a model needs an
alembic migration: a test compares them.
"""

import datetime

import sqlalchemy as sa
from sqlalchemy import orm


def _utcnow():
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


class Base(orm.DeclarativeBase):
    pass


class TimestampMixin:
    created_at = sa.Column(sa.DateTime, default=_utcnow)
    updated_at = sa.Column(sa.DateTime, onupdate=_utcnow)


class SoftDeleteMixin:
    deleted_at = sa.Column(sa.DateTime)
    deleted = sa.Column(sa.Integer, default=0, nullable=False)


# ---------------------------------------------------------------- compute

class Service(Base, TimestampMixin):
    __tablename__ = 'services'
    __table_args__ = (
        sa.UniqueConstraint('host', 'binary',
                            name='uniq_services0host0binary'),
        sa.UniqueConstraint('uuid', name='uniq_services0uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    host = sa.Column(sa.String(255), nullable=False)
    binary = sa.Column(sa.String(64), nullable=False)
    topic = sa.Column(sa.String(64))
    report_count = sa.Column(sa.Integer, nullable=False, default=0)
    disabled = sa.Column(sa.Boolean, nullable=False, default=False)
    disabled_reason = sa.Column(sa.String(255))
    forced_down = sa.Column(sa.Boolean, nullable=False, default=False)
    last_seen_up = sa.Column(sa.DateTime)
    version = sa.Column(sa.Integer, nullable=False, default=0)


class ComputeNode(Base, TimestampMixin):
    __tablename__ = 'compute_nodes'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_compute_nodes0uuid'),
        sa.UniqueConstraint('host', 'hypervisor_hostname',
                            name='uniq_compute_nodes0host0hypervisor_hostname'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    service_id = sa.Column(sa.Integer, sa.ForeignKey('services.id'))
    host = sa.Column(sa.String(255), nullable=False)
    hypervisor_hostname = sa.Column(sa.String(255), nullable=False)
    vcpus = sa.Column(sa.Integer, nullable=False)
    memory_mb = sa.Column(sa.Integer, nullable=False)
    local_gb = sa.Column(sa.Integer, nullable=False)
    vcpus_used = sa.Column(sa.Integer, nullable=False, default=0)
    memory_mb_used = sa.Column(sa.Integer, nullable=False, default=0)
    local_gb_used = sa.Column(sa.Integer, nullable=False, default=0)
    running_vms = sa.Column(sa.Integer, nullable=False, default=0)
    hypervisor_type = sa.Column(sa.String(255), nullable=False)
    hypervisor_version = sa.Column(sa.Integer, nullable=False)
    cpu_info = sa.Column(sa.Text, nullable=False)
    host_ip = sa.Column(sa.String(39))
    cpu_allocation_ratio = sa.Column(sa.Float)
    ram_allocation_ratio = sa.Column(sa.Float)
    disk_allocation_ratio = sa.Column(sa.Float)
    stats = sa.Column(sa.Text)
    # JSON written by the compute from its driver (migration 0003):
    # {name: value}, [pool], [cell].
    metrics = sa.Column(sa.Text)
    pci_device_pools = sa.Column(sa.Text)
    numa_topology = sa.Column(sa.Text)


class Flavor(Base, TimestampMixin):
    __tablename__ = 'flavors'
    __table_args__ = (
        sa.UniqueConstraint('flavorid', name='uniq_flavors0flavorid'),
        sa.UniqueConstraint('name', name='uniq_flavors0name'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    flavorid = sa.Column(sa.String(255), nullable=False)
    name = sa.Column(sa.String(255), nullable=False)
    memory_mb = sa.Column(sa.Integer, nullable=False)
    vcpus = sa.Column(sa.Integer, nullable=False)
    root_gb = sa.Column(sa.Integer, nullable=False, default=0)
    ephemeral_gb = sa.Column(sa.Integer, nullable=False, default=0)
    swap = sa.Column(sa.Integer, nullable=False, default=0)
    rxtx_factor = sa.Column(sa.Float, nullable=False, default=1.0)
    disabled = sa.Column(sa.Boolean, nullable=False, default=False)
    is_public = sa.Column(sa.Boolean, nullable=False, default=True)
    description = sa.Column(sa.Text)
    extra_specs = orm.relationship('FlavorExtraSpec', lazy='selectin',
                                   cascade='all, delete-orphan')
    # Loaded only when used (access changes, deletes), not on every read.
    projects = orm.relationship('FlavorProject', lazy='select',
                                cascade='all, delete-orphan')


class FlavorExtraSpec(Base, TimestampMixin):
    __tablename__ = 'flavor_extra_specs'
    __table_args__ = (
        sa.UniqueConstraint('flavor_id', 'key',
                            name='uniq_flavor_extra_specs0flavor_id0key'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    flavor_id = sa.Column(sa.Integer, sa.ForeignKey('flavors.id'),
                          nullable=False)
    key = sa.Column(sa.String(255), nullable=False)
    value = sa.Column(sa.String(255))


class FlavorProject(Base, TimestampMixin):
    """A project that may use a private flavor (Nova's flavor access)."""
    __tablename__ = 'flavor_projects'
    __table_args__ = (
        sa.UniqueConstraint('flavor_id', 'project_id',
                            name='uniq_flavor_projects0flavor_id0project_id'),
        sa.Index('flavor_projects_project_id_idx', 'project_id'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    flavor_id = sa.Column(sa.Integer, sa.ForeignKey('flavors.id'),
                          nullable=False)
    project_id = sa.Column(sa.String(255), nullable=False)


class Image(Base, TimestampMixin):
    __tablename__ = 'images'
    __table_args__ = (
        sa.Index('images_name_idx', 'name'),
    )
    id = sa.Column(sa.String(36), primary_key=True)
    name = sa.Column(sa.String(255), nullable=False)
    status = sa.Column(sa.String(32), nullable=False, default='active')
    disk_format = sa.Column(sa.String(32), nullable=False)
    container_format = sa.Column(sa.String(32), nullable=False)
    size = sa.Column(sa.BigInteger, nullable=False, default=0)
    min_disk = sa.Column(sa.Integer, nullable=False, default=0)
    min_ram = sa.Column(sa.Integer, nullable=False, default=0)
    owner = sa.Column(sa.String(255))
    visibility = sa.Column(sa.String(32), nullable=False, default='public')
    properties = orm.relationship('ImageProperty', lazy='selectin',
                                  cascade='all, delete-orphan')


class ImageProperty(Base):
    __tablename__ = 'image_properties'
    __table_args__ = (
        sa.UniqueConstraint('image_id', 'name',
                            name='uniq_image_properties0image_id0name'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    image_id = sa.Column(sa.String(36), sa.ForeignKey('images.id'),
                         nullable=False)
    name = sa.Column(sa.String(255), nullable=False)
    value = sa.Column(sa.Text)


class Instance(Base, TimestampMixin, SoftDeleteMixin):
    __tablename__ = 'instances'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_instances0uuid'),
        sa.Index('instances_project_id_deleted_idx', 'project_id', 'deleted'),
        sa.Index('instances_host_deleted_idx', 'host', 'deleted'),
        sa.Index('instances_vm_state_created_at_idx', 'vm_state',
                 'created_at'),
        sa.Index('instances_task_state_updated_at_idx', 'task_state',
                 'updated_at'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    project_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=False)
    display_name = sa.Column(sa.String(255))
    hostname = sa.Column(sa.String(255))
    image_ref = sa.Column(sa.String(255))
    flavor = sa.Column(sa.Text, nullable=False)
    vcpus = sa.Column(sa.Integer, nullable=False)
    memory_mb = sa.Column(sa.Integer, nullable=False)
    root_gb = sa.Column(sa.Integer, nullable=False)
    ephemeral_gb = sa.Column(sa.Integer, nullable=False)
    host = sa.Column(sa.String(255))
    node = sa.Column(sa.String(255))
    compute_node_uuid = sa.Column(sa.String(36))
    vm_state = sa.Column(sa.String(255), nullable=False)
    task_state = sa.Column(sa.String(255))
    power_state = sa.Column(sa.Integer, nullable=False, default=0)
    availability_zone = sa.Column(sa.String(255))
    key_name = sa.Column(sa.String(255))
    reservation_id = sa.Column(sa.String(255))
    launch_index = sa.Column(sa.Integer)
    launched_at = sa.Column(sa.DateTime)
    terminated_at = sa.Column(sa.DateTime)
    metadata_ = sa.Column('metadata', sa.Text)
    # Set when a failed build released its quota (so deleting it later
    # does not release it again); released instances are not counted.
    quota_released = sa.Column(sa.Boolean, nullable=False, default=False,
                               server_default=sa.false())
    # Migration 0004_server_lifecycle: locks (locked_by is 'owner' or
    # 'admin', as in Nova), the description, a resize's pending flavors
    # (Flavor primitives as JSON) and where a shelved server was.
    locked = sa.Column(sa.Boolean, nullable=False, default=False,
                       server_default=sa.false())
    locked_by = sa.Column(sa.String(255))
    locked_reason = sa.Column(sa.Text)
    description = sa.Column(sa.Text)
    old_flavor = sa.Column(sa.Text)
    new_flavor = sa.Column(sa.Text)
    shelved_at = sa.Column(sa.DateTime)
    shelved_image_id = sa.Column(sa.String(36))
    shelved_host = sa.Column(sa.String(255))
    # Migration 0006_build_owner: which conductor process owns the build
    # while it is with the conductors (conductor/tasks/ownership.py).
    build_owner = sa.Column(sa.String(255))
    # Migration 0008_trusted_certs: the ids of the certificates the
    # user trusts to have signed the server's image (a JSON list).
    trusted_certs = sa.Column(sa.Text)
    # Migration 0010_user_data: the user data given at create or rebuild
    # (base64, as the API took it).
    user_data = sa.Column(sa.Text)



class Tag(Base):
    """A server's tag (migration 0007_server_tags): a string of at most
    60 characters, at most 50 per server (the API checks both)."""
    __tablename__ = 'tags'
    __table_args__ = (
        sa.Index('tags_tag_idx', 'tag'),
    )
    resource_id = sa.Column(sa.String(36), primary_key=True)
    tag = sa.Column(sa.String(80), primary_key=True)


class InstanceFault(Base, TimestampMixin):
    __tablename__ = 'instance_faults'
    __table_args__ = (
        sa.Index('instance_faults_instance_uuid_idx', 'instance_uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    code = sa.Column(sa.Integer, nullable=False)
    message = sa.Column(sa.String(255), nullable=False)
    details = sa.Column(sa.Text)
    host = sa.Column(sa.String(255))


class RequestSpec(Base, TimestampMixin):
    __tablename__ = 'request_specs'
    __table_args__ = (
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_request_specs0instance_uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    spec = sa.Column(sa.Text, nullable=False)


# -------------------------------------------------------------- placement

class ResourceProvider(Base, TimestampMixin):
    __tablename__ = 'resource_providers'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_resource_providers0uuid'),
        sa.UniqueConstraint('name', name='uniq_resource_providers0name'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(200), nullable=False)
    generation = sa.Column(sa.Integer, nullable=False, default=0)
    root_provider_id = sa.Column(sa.Integer,
                                 sa.ForeignKey('resource_providers.id'))
    parent_provider_id = sa.Column(sa.Integer,
                                   sa.ForeignKey('resource_providers.id'))


class Inventory(Base, TimestampMixin):
    __tablename__ = 'inventories'
    __table_args__ = (
        sa.UniqueConstraint('resource_provider_id', 'resource_class',
                            name='uniq_inventories0provider0class'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    resource_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'), nullable=False)
    resource_class = sa.Column(sa.String(255), nullable=False)
    total = sa.Column(sa.Integer, nullable=False)
    reserved = sa.Column(sa.Integer, nullable=False, default=0)
    min_unit = sa.Column(sa.Integer, nullable=False, default=1)
    max_unit = sa.Column(sa.Integer, nullable=False)
    step_size = sa.Column(sa.Integer, nullable=False, default=1)
    allocation_ratio = sa.Column(sa.Float, nullable=False, default=1.0)


class Consumer(Base, TimestampMixin):
    __tablename__ = 'consumers'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_consumers0uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    project_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=False)
    generation = sa.Column(sa.Integer, nullable=False, default=0)


class Allocation(Base, TimestampMixin):
    __tablename__ = 'allocations'
    __table_args__ = (
        sa.Index('allocations_consumer_id_idx', 'consumer_id'),
        sa.Index('allocations_provider_class_idx', 'resource_provider_id',
                 'resource_class'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    resource_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'), nullable=False)
    consumer_id = sa.Column(sa.String(36), nullable=False)
    resource_class = sa.Column(sa.String(255), nullable=False)
    used = sa.Column(sa.Integer, nullable=False)


class Trait(Base, TimestampMixin):
    __tablename__ = 'traits'
    __table_args__ = (
        sa.UniqueConstraint('name', name='uniq_traits0name'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    name = sa.Column(sa.String(255), nullable=False)


class ResourceProviderTrait(Base):
    __tablename__ = 'resource_provider_traits'
    resource_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'), primary_key=True)
    trait_id = sa.Column(sa.Integer, sa.ForeignKey('traits.id'),
                         primary_key=True)


class PlacementAggregate(Base, TimestampMixin):
    __tablename__ = 'placement_aggregates'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_placement_aggregates0uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)


class ResourceProviderAggregate(Base):
    __tablename__ = 'resource_provider_aggregates'
    resource_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'), primary_key=True)
    aggregate_id = sa.Column(sa.Integer,
                             sa.ForeignKey('placement_aggregates.id'),
                             primary_key=True)


# ----------------------------------------------------------------- quotas
# (quota limits, classes, usages and reservations: migration 0002_quotas)

class Quota(Base, TimestampMixin):
    """A project's limit of one resource (-1: unlimited)."""
    __tablename__ = 'quotas'
    __table_args__ = (
        sa.UniqueConstraint('project_id', 'resource',
                            name='uniq_quotas0project_id0resource'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    resource = sa.Column(sa.String(255), nullable=False)
    hard_limit = sa.Column(sa.Integer, nullable=False)


class ProjectUserQuota(Base, TimestampMixin):
    """A user's limit of one resource within a project."""
    __tablename__ = 'project_user_quotas'
    __table_args__ = (
        sa.UniqueConstraint(
            'project_id', 'user_id', 'resource',
            name='uniq_project_user_quotas0project_id0user_id0resource'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=False)
    resource = sa.Column(sa.String(255), nullable=False)
    hard_limit = sa.Column(sa.Integer, nullable=False)


class QuotaClass(Base, TimestampMixin):
    """A quota class's limit of one resource (class "default" first)."""
    __tablename__ = 'quota_classes'
    __table_args__ = (
        sa.UniqueConstraint('class_name', 'resource',
                            name='uniq_quota_classes0class_name0resource'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    class_name = sa.Column(sa.String(255), nullable=False)
    resource = sa.Column(sa.String(255), nullable=False)
    hard_limit = sa.Column(sa.Integer, nullable=False)


class QuotaUsage(Base, TimestampMixin):
    """Recorded usage of one resource by a user of a project.

    ``user_id`` '' is the row of the whole project (the sum of its users'
    rows), which every writer locks first: it serialises a project's
    reservations. ``in_use`` -1 means unknown (recounted at the next
    reservation). ``refreshed_at`` is when ``in_use`` was last counted
    from the servers (``max_age`` measures from it).
    """
    __tablename__ = 'quota_usages'
    __table_args__ = (
        sa.UniqueConstraint(
            'project_id', 'user_id', 'resource',
            name='uniq_quota_usages0project_id0user_id0resource'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=False)
    resource = sa.Column(sa.String(255), nullable=False)
    in_use = sa.Column(sa.Integer, nullable=False)
    reserved = sa.Column(sa.Integer, nullable=False, default=0)
    until_refresh = sa.Column(sa.Integer)
    refreshed_at = sa.Column(sa.DateTime)


class Reservation(Base, TimestampMixin):
    """Quota held for a request until it commits or rolls back.

    One row per resource; the rows of one reservation share ``uuid``.
    """
    __tablename__ = 'reservations'
    __table_args__ = (
        sa.UniqueConstraint('uuid', 'resource',
                            name='uniq_reservations0uuid0resource'),
        sa.Index('reservations_expire_idx', 'expire'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    project_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=False)
    resource = sa.Column(sa.String(255), nullable=False)
    delta = sa.Column(sa.Integer, nullable=False)
    expire = sa.Column(sa.DateTime, nullable=False)



# ------------------------------------------- aggregates and server groups
# (host aggregates with metadata, server groups and their members:
# migration 0003_aggregates_groups)

class Aggregate(Base, TimestampMixin):
    """A host aggregate (Nova's): a named set of hosts with metadata.

    Mirrored into placement: its uuid is a placement aggregate of the
    providers of its hosts' compute nodes.
    """
    __tablename__ = 'aggregates'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_aggregates0uuid'),
        sa.UniqueConstraint('name', name='uniq_aggregates0name'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255), nullable=False)
    hosts = orm.relationship('AggregateHost', lazy='selectin',
                             cascade='all, delete-orphan',
                             order_by='AggregateHost.id')
    metadata_items = orm.relationship('AggregateMetadata', lazy='selectin',
                                      cascade='all, delete-orphan')


class AggregateHost(Base, TimestampMixin):
    __tablename__ = 'aggregate_hosts'
    __table_args__ = (
        sa.UniqueConstraint('aggregate_id', 'host',
                            name='uniq_aggregate_hosts0aggregate_id0host'),
        sa.Index('aggregate_hosts_host_idx', 'host'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    aggregate_id = sa.Column(sa.Integer, sa.ForeignKey('aggregates.id'),
                             nullable=False)
    host = sa.Column(sa.String(255), nullable=False)


class AggregateMetadata(Base, TimestampMixin):
    __tablename__ = 'aggregate_metadata'
    __table_args__ = (
        sa.UniqueConstraint('aggregate_id', 'key',
                            name='uniq_aggregate_metadata0aggregate_id0key'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    aggregate_id = sa.Column(sa.Integer, sa.ForeignKey('aggregates.id'),
                             nullable=False)
    key = sa.Column(sa.String(255), nullable=False)
    value = sa.Column(sa.String(255), nullable=False)


class InstanceGroup(Base, TimestampMixin):
    """A server group: a policy over where its members may run."""
    __tablename__ = 'instance_groups'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_instance_groups0uuid'),
        sa.Index('instance_groups_project_id_idx', 'project_id'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=False)
    policy = sa.Column(sa.String(255), nullable=False)
    rules = sa.Column(sa.Text)


class InstanceGroupMember(Base, TimestampMixin):
    __tablename__ = 'instance_group_member'
    __table_args__ = (
        sa.UniqueConstraint(
            'group_id', 'instance_uuid',
            name='uniq_instance_group_member0group_id0instance_uuid'),
        sa.Index('instance_group_member_instance_idx', 'instance_uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    group_id = sa.Column(sa.Integer, sa.ForeignKey('instance_groups.id'),
                         nullable=False)
    instance_uuid = sa.Column(sa.String(36), nullable=False)


# ------------------------------------------------------ a server's life
# (key pairs, instance actions and events, migrations: migration
# 0004_server_lifecycle)

class KeyPair(Base, TimestampMixin, SoftDeleteMixin):
    """An SSH (or x509) public key of one user, by name."""
    __tablename__ = 'key_pairs'
    __table_args__ = (
        sa.UniqueConstraint('user_id', 'name', 'deleted',
                            name='uniq_key_pairs0user_id0name0deleted'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    name = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=False)
    fingerprint = sa.Column(sa.String(255), nullable=False)
    public_key = sa.Column(sa.Text, nullable=False)
    type = sa.Column(sa.String(10), nullable=False, default='ssh',
                     server_default='ssh')


class InstanceAction(Base, TimestampMixin):
    """One user request on a server (reboot, resize, ...), by request id."""
    __tablename__ = 'instance_actions'
    __table_args__ = (
        sa.Index('instance_uuid_idx', 'instance_uuid'),
        sa.Index('request_id_idx', 'request_id'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    action = sa.Column(sa.String(255), nullable=False)
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    request_id = sa.Column(sa.String(255))
    user_id = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255))
    start_time = sa.Column(sa.DateTime)
    finish_time = sa.Column(sa.DateTime)
    message = sa.Column(sa.String(255))


class InstanceActionEvent(Base, TimestampMixin):
    """One step of an action, as the service that ran it recorded it."""
    __tablename__ = 'instance_actions_events'
    __table_args__ = (
        sa.Index('instance_actions_events_action_id_idx', 'action_id'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    action_id = sa.Column(sa.Integer, sa.ForeignKey('instance_actions.id'),
                          nullable=False)
    event = sa.Column(sa.String(255), nullable=False)
    start_time = sa.Column(sa.DateTime)
    finish_time = sa.Column(sa.DateTime)
    result = sa.Column(sa.String(255))
    traceback = sa.Column(sa.Text)
    host = sa.Column(sa.String(255))
    details = sa.Column(sa.Text)


class Migration(Base, TimestampMixin, SoftDeleteMixin):
    """A move of a server (resize, migration, live-migration, evacuation).

    ``old_instance_type_id`` / ``new_instance_type_id`` are flavors' ids.
    """
    __tablename__ = 'migrations'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_migrations0uuid'),
        sa.Index('migrations_instance_uuid_and_status_idx', 'deleted',
                 'instance_uuid', 'status'),
        # Two narrow indexes, not Nova's one over both hosts and nodes:
        # that one passes MySQL's 3072-byte key limit in utf8mb4.
        sa.Index('migrations_source_compute_status_idx', 'source_compute',
                 'status'),
        sa.Index('migrations_dest_compute_status_idx', 'dest_compute',
                 'status'),
        sa.Index('migrations_updated_at_idx', 'updated_at'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    source_compute = sa.Column(sa.String(255))
    dest_compute = sa.Column(sa.String(255))
    source_node = sa.Column(sa.String(255))
    dest_node = sa.Column(sa.String(255))
    dest_host = sa.Column(sa.String(255))
    old_instance_type_id = sa.Column(sa.Integer)
    new_instance_type_id = sa.Column(sa.Integer)
    status = sa.Column(sa.String(255))
    migration_type = sa.Column(sa.String(32))
    instance_uuid = sa.Column(sa.String(36))
    hidden = sa.Column(sa.Boolean, nullable=False, default=False,
                       server_default=sa.false())
    cross_cell_move = sa.Column(sa.Boolean, nullable=False, default=False,
                                server_default=sa.false())
    user_id = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255))


# ------------------------------------------------------ boot requests
# (migration 0009_provision_requests)

class ProvisionRequest(Base):
    """One boot request whose records are written: the key of a create
    the API may send again after a lost answer (conductor RPC 1.7), so a
    second attempt finds the first's servers instead of making more.
    Written in the transaction of the records; kept about an hour."""
    __tablename__ = 'provision_requests'
    __table_args__ = (
        sa.Index('provision_requests_created_at_idx', 'created_at'),
    )
    request_key = sa.Column(sa.String(255), primary_key=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    reservation_id = sa.Column(sa.String(255), nullable=False)
    created_at = sa.Column(sa.DateTime, nullable=False, default=_utcnow)
