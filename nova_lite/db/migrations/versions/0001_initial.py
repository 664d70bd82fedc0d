"""Initial schema: compute and placement tables

Revision ID: 0001_initial
Revises:
Create Date: 2026-11-21 07:13:13.318672
"""

from alembic import op
import sqlalchemy as sa


revision = '0001_initial'
down_revision = None
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('consumers',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('project_id', sa.String(length=255), nullable=False),
    sa.Column('user_id', sa.String(length=255), nullable=False),
    sa.Column('generation', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('uuid', name='uniq_consumers0uuid')
    )
    op.create_table('flavors',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('flavorid', sa.String(length=255), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('memory_mb', sa.Integer(), nullable=False),
    sa.Column('vcpus', sa.Integer(), nullable=False),
    sa.Column('root_gb', sa.Integer(), nullable=False),
    sa.Column('ephemeral_gb', sa.Integer(), nullable=False),
    sa.Column('swap', sa.Integer(), nullable=False),
    sa.Column('rxtx_factor', sa.Float(), nullable=False),
    sa.Column('disabled', sa.Boolean(), nullable=False),
    sa.Column('is_public', sa.Boolean(), nullable=False),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('flavorid', name='uniq_flavors0flavorid'),
    sa.UniqueConstraint('name', name='uniq_flavors0name')
    )
    op.create_table('images',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('status', sa.String(length=32), nullable=False),
    sa.Column('disk_format', sa.String(length=32), nullable=False),
    sa.Column('container_format', sa.String(length=32), nullable=False),
    sa.Column('size', sa.BigInteger(), nullable=False),
    sa.Column('min_disk', sa.Integer(), nullable=False),
    sa.Column('min_ram', sa.Integer(), nullable=False),
    sa.Column('owner', sa.String(length=255), nullable=True),
    sa.Column('visibility', sa.String(length=32), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('images', schema=None) as batch_op:
        batch_op.create_index('images_name_idx', ['name'], unique=False)

    op.create_table('instance_faults',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('instance_uuid', sa.String(length=36), nullable=False),
    sa.Column('code', sa.Integer(), nullable=False),
    sa.Column('message', sa.String(length=255), nullable=False),
    sa.Column('details', sa.Text(), nullable=True),
    sa.Column('host', sa.String(length=255), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('instance_faults', schema=None) as batch_op:
        batch_op.create_index('instance_faults_instance_uuid_idx', ['instance_uuid'], unique=False)

    op.create_table('instances',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('project_id', sa.String(length=255), nullable=False),
    sa.Column('user_id', sa.String(length=255), nullable=False),
    sa.Column('display_name', sa.String(length=255), nullable=True),
    sa.Column('hostname', sa.String(length=255), nullable=True),
    sa.Column('image_ref', sa.String(length=255), nullable=True),
    sa.Column('flavor', sa.Text(), nullable=False),
    sa.Column('vcpus', sa.Integer(), nullable=False),
    sa.Column('memory_mb', sa.Integer(), nullable=False),
    sa.Column('root_gb', sa.Integer(), nullable=False),
    sa.Column('ephemeral_gb', sa.Integer(), nullable=False),
    sa.Column('host', sa.String(length=255), nullable=True),
    sa.Column('node', sa.String(length=255), nullable=True),
    sa.Column('compute_node_uuid', sa.String(length=36), nullable=True),
    sa.Column('vm_state', sa.String(length=255), nullable=False),
    sa.Column('task_state', sa.String(length=255), nullable=True),
    sa.Column('power_state', sa.Integer(), nullable=False),
    sa.Column('availability_zone', sa.String(length=255), nullable=True),
    sa.Column('key_name', sa.String(length=255), nullable=True),
    sa.Column('reservation_id', sa.String(length=255), nullable=True),
    sa.Column('launch_index', sa.Integer(), nullable=True),
    sa.Column('launched_at', sa.DateTime(), nullable=True),
    sa.Column('terminated_at', sa.DateTime(), nullable=True),
    sa.Column('metadata', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('uuid', name='uniq_instances0uuid')
    )
    with op.batch_alter_table('instances', schema=None) as batch_op:
        batch_op.create_index('instances_host_deleted_idx', ['host', 'deleted'], unique=False)
        batch_op.create_index('instances_project_id_deleted_idx', ['project_id', 'deleted'], unique=False)
        batch_op.create_index('instances_vm_state_created_at_idx', ['vm_state', 'created_at'], unique=False)

    op.create_table('placement_aggregates',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('uuid', name='uniq_placement_aggregates0uuid')
    )
    op.create_table('request_specs',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('instance_uuid', sa.String(length=36), nullable=False),
    sa.Column('spec', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('instance_uuid', name='uniq_request_specs0instance_uuid')
    )
    op.create_table('resource_providers',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('generation', sa.Integer(), nullable=False),
    sa.Column('root_provider_id', sa.Integer(), nullable=True),
    sa.Column('parent_provider_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['parent_provider_id'], ['resource_providers.id'], ),
    sa.ForeignKeyConstraint(['root_provider_id'], ['resource_providers.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name', name='uniq_resource_providers0name'),
    sa.UniqueConstraint('uuid', name='uniq_resource_providers0uuid')
    )
    op.create_table('services',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('host', sa.String(length=255), nullable=False),
    sa.Column('binary', sa.String(length=64), nullable=False),
    sa.Column('topic', sa.String(length=64), nullable=True),
    sa.Column('report_count', sa.Integer(), nullable=False),
    sa.Column('disabled', sa.Boolean(), nullable=False),
    sa.Column('disabled_reason', sa.String(length=255), nullable=True),
    sa.Column('forced_down', sa.Boolean(), nullable=False),
    sa.Column('last_seen_up', sa.DateTime(), nullable=True),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('host', 'binary', name='uniq_services0host0binary'),
    sa.UniqueConstraint('uuid', name='uniq_services0uuid')
    )
    op.create_table('traits',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name', name='uniq_traits0name')
    )
    op.create_table('allocations',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('resource_provider_id', sa.Integer(), nullable=False),
    sa.Column('consumer_id', sa.String(length=36), nullable=False),
    sa.Column('resource_class', sa.String(length=255), nullable=False),
    sa.Column('used', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['resource_provider_id'], ['resource_providers.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('allocations', schema=None) as batch_op:
        batch_op.create_index('allocations_consumer_id_idx', ['consumer_id'], unique=False)
        batch_op.create_index('allocations_provider_class_idx', ['resource_provider_id', 'resource_class'], unique=False)

    op.create_table('compute_nodes',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('service_id', sa.Integer(), nullable=True),
    sa.Column('host', sa.String(length=255), nullable=False),
    sa.Column('hypervisor_hostname', sa.String(length=255), nullable=False),
    sa.Column('vcpus', sa.Integer(), nullable=False),
    sa.Column('memory_mb', sa.Integer(), nullable=False),
    sa.Column('local_gb', sa.Integer(), nullable=False),
    sa.Column('vcpus_used', sa.Integer(), nullable=False),
    sa.Column('memory_mb_used', sa.Integer(), nullable=False),
    sa.Column('local_gb_used', sa.Integer(), nullable=False),
    sa.Column('running_vms', sa.Integer(), nullable=False),
    sa.Column('hypervisor_type', sa.String(length=255), nullable=False),
    sa.Column('hypervisor_version', sa.Integer(), nullable=False),
    sa.Column('cpu_info', sa.Text(), nullable=False),
    sa.Column('host_ip', sa.String(length=39), nullable=True),
    sa.Column('cpu_allocation_ratio', sa.Float(), nullable=True),
    sa.Column('ram_allocation_ratio', sa.Float(), nullable=True),
    sa.Column('disk_allocation_ratio', sa.Float(), nullable=True),
    sa.Column('stats', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['service_id'], ['services.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('host', 'hypervisor_hostname', name='uniq_compute_nodes0host0hypervisor_hostname'),
    sa.UniqueConstraint('uuid', name='uniq_compute_nodes0uuid')
    )
    op.create_table('flavor_extra_specs',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('flavor_id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(length=255), nullable=False),
    sa.Column('value', sa.String(length=255), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['flavor_id'], ['flavors.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('flavor_id', 'key', name='uniq_flavor_extra_specs0flavor_id0key')
    )
    op.create_table('image_properties',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('image_id', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('value', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['image_id'], ['images.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('image_id', 'name', name='uniq_image_properties0image_id0name')
    )
    op.create_table('inventories',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('resource_provider_id', sa.Integer(), nullable=False),
    sa.Column('resource_class', sa.String(length=255), nullable=False),
    sa.Column('total', sa.Integer(), nullable=False),
    sa.Column('reserved', sa.Integer(), nullable=False),
    sa.Column('min_unit', sa.Integer(), nullable=False),
    sa.Column('max_unit', sa.Integer(), nullable=False),
    sa.Column('step_size', sa.Integer(), nullable=False),
    sa.Column('allocation_ratio', sa.Float(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['resource_provider_id'], ['resource_providers.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('resource_provider_id', 'resource_class', name='uniq_inventories0provider0class')
    )
    op.create_table('resource_provider_aggregates',
    sa.Column('resource_provider_id', sa.Integer(), nullable=False),
    sa.Column('aggregate_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['aggregate_id'], ['placement_aggregates.id'], ),
    sa.ForeignKeyConstraint(['resource_provider_id'], ['resource_providers.id'], ),
    sa.PrimaryKeyConstraint('resource_provider_id', 'aggregate_id')
    )
    op.create_table('resource_provider_traits',
    sa.Column('resource_provider_id', sa.Integer(), nullable=False),
    sa.Column('trait_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['resource_provider_id'], ['resource_providers.id'], ),
    sa.ForeignKeyConstraint(['trait_id'], ['traits.id'], ),
    sa.PrimaryKeyConstraint('resource_provider_id', 'trait_id')
    )
