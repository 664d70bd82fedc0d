"""Host aggregates and server groups

Also the compute node columns the scheduler's filters read: metrics, PCI
device pools and NUMA topology (JSON written by the compute).

Revision ID: 0003_aggregates_groups
Revises: 0002_quotas
Create Date: 2026-11-21 09:00:01
"""

from alembic import op
import sqlalchemy as sa

revision = '0003_aggregates_groups'
down_revision = '0002_quotas'
branch_labels = None
depends_on = None


def _timestamps():
    return [sa.Column('created_at', sa.DateTime(), nullable=True),
            sa.Column('updated_at', sa.DateTime(), nullable=True)]


def upgrade():
    op.create_table(
        'aggregates',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid', name='uniq_aggregates0uuid'),
        sa.UniqueConstraint('name', name='uniq_aggregates0name'))
    op.create_table(
        'aggregate_hosts',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('aggregate_id', sa.Integer(), nullable=False),
        sa.Column('host', sa.String(length=255), nullable=False),
        *_timestamps(),
        sa.ForeignKeyConstraint(['aggregate_id'], ['aggregates.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('aggregate_id', 'host',
                            name='uniq_aggregate_hosts0aggregate_id0host'))
    op.create_index('aggregate_hosts_host_idx', 'aggregate_hosts', ['host'])
    op.create_table(
        'aggregate_metadata',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('aggregate_id', sa.Integer(), nullable=False),
        sa.Column('key', sa.String(length=255), nullable=False),
        sa.Column('value', sa.String(length=255), nullable=False),
        *_timestamps(),
        sa.ForeignKeyConstraint(['aggregate_id'], ['aggregates.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('aggregate_id', 'key',
                            name='uniq_aggregate_metadata0aggregate_id0key'))
    op.create_table(
        'instance_groups',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=True),
        sa.Column('project_id', sa.String(length=255), nullable=False),
        sa.Column('user_id', sa.String(length=255), nullable=False),
        sa.Column('policy', sa.String(length=255), nullable=False),
        sa.Column('rules', sa.Text(), nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid', name='uniq_instance_groups0uuid'))
    op.create_index('instance_groups_project_id_idx', 'instance_groups',
                    ['project_id'])
    op.create_table(
        'instance_group_member',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('group_id', sa.Integer(), nullable=False),
        sa.Column('instance_uuid', sa.String(length=36), nullable=False),
        *_timestamps(),
        sa.ForeignKeyConstraint(['group_id'], ['instance_groups.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'group_id', 'instance_uuid',
            name='uniq_instance_group_member0group_id0instance_uuid'))
    op.create_index('instance_group_member_instance_idx',
                    'instance_group_member', ['instance_uuid'])
    with op.batch_alter_table('compute_nodes') as batch_op:
        batch_op.add_column(sa.Column('metrics', sa.Text(), nullable=True))
        batch_op.add_column(sa.Column('pci_device_pools', sa.Text(),
                                      nullable=True))
        batch_op.add_column(sa.Column('numa_topology', sa.Text(),
                                      nullable=True))
