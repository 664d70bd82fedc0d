"""Server life cycle: key pairs, instance actions, migrations, locks

Everything issue 9 needs in one revision: key pairs per user, the
instance action log (actions and their events), migration records for
resize, cold and live migration and evacuation, and the instance columns
for locks, a description, pending flavors of a resize and shelving.
Only additions, so the previous release keeps working on this schema.

Revision ID: 0004_server_lifecycle
Revises: 0003_aggregates_groups
Create Date: 2026-11-24 15:40:00
"""

from alembic import op
import sqlalchemy as sa

revision = '0004_server_lifecycle'
down_revision = '0003_aggregates_groups'
branch_labels = None
depends_on = None


def _timestamps():
    return [sa.Column('created_at', sa.DateTime(), nullable=True),
            sa.Column('updated_at', sa.DateTime(), nullable=True)]


def _soft_delete():
    return [sa.Column('deleted_at', sa.DateTime(), nullable=True),
            sa.Column('deleted', sa.Integer(), nullable=False)]


def _key_pairs():
    op.create_table(
        'key_pairs',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('user_id', sa.String(length=255), nullable=False),
        sa.Column('fingerprint', sa.String(length=255), nullable=False),
        sa.Column('public_key', sa.Text(), nullable=False),
        sa.Column('type', sa.String(length=10), nullable=False,
                  server_default='ssh'),
        *_timestamps(), *_soft_delete(),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('user_id', 'name', 'deleted',
                            name='uniq_key_pairs0user_id0name0deleted'))


def _instance_actions():
    op.create_table(
        'instance_actions',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('action', sa.String(length=255), nullable=False),
        sa.Column('instance_uuid', sa.String(length=36), nullable=False),
        sa.Column('request_id', sa.String(length=255), nullable=True),
        sa.Column('user_id', sa.String(length=255), nullable=True),
        sa.Column('project_id', sa.String(length=255), nullable=True),
        sa.Column('start_time', sa.DateTime(), nullable=True),
        sa.Column('finish_time', sa.DateTime(), nullable=True),
        sa.Column('message', sa.String(length=255), nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id'))
    op.create_index('instance_uuid_idx', 'instance_actions',
                    ['instance_uuid'])
    op.create_index('request_id_idx', 'instance_actions', ['request_id'])
    op.create_table(
        'instance_actions_events',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('action_id', sa.Integer(), nullable=False),
        sa.Column('event', sa.String(length=255), nullable=False),
        sa.Column('start_time', sa.DateTime(), nullable=True),
        sa.Column('finish_time', sa.DateTime(), nullable=True),
        sa.Column('result', sa.String(length=255), nullable=True),
        sa.Column('traceback', sa.Text(), nullable=True),
        sa.Column('host', sa.String(length=255), nullable=True),
        sa.Column('details', sa.Text(), nullable=True),
        *_timestamps(),
        sa.ForeignKeyConstraint(['action_id'], ['instance_actions.id']),
        sa.PrimaryKeyConstraint('id'))
    op.create_index('instance_actions_events_action_id_idx',
                    'instance_actions_events', ['action_id'])


def _migrations():
    op.create_table(
        'migrations',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('source_compute', sa.String(length=255), nullable=True),
        sa.Column('dest_compute', sa.String(length=255), nullable=True),
        sa.Column('source_node', sa.String(length=255), nullable=True),
        sa.Column('dest_node', sa.String(length=255), nullable=True),
        sa.Column('dest_host', sa.String(length=255), nullable=True),
        sa.Column('old_instance_type_id', sa.Integer(), nullable=True),
        sa.Column('new_instance_type_id', sa.Integer(), nullable=True),
        sa.Column('status', sa.String(length=255), nullable=True),
        sa.Column('migration_type', sa.String(length=32), nullable=True),
        sa.Column('instance_uuid', sa.String(length=36), nullable=True),
        sa.Column('hidden', sa.Boolean(), nullable=False,
                  server_default=sa.false()),
        sa.Column('cross_cell_move', sa.Boolean(), nullable=False,
                  server_default=sa.false()),
        sa.Column('user_id', sa.String(length=255), nullable=True),
        sa.Column('project_id', sa.String(length=255), nullable=True),
        *_timestamps(), *_soft_delete(),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid', name='uniq_migrations0uuid'))
    op.create_index('migrations_instance_uuid_and_status_idx', 'migrations',
                    ['deleted', 'instance_uuid', 'status'])
    # Two narrow indexes, not Nova's one over both hosts and nodes: that
    # one passes MySQL's 3072-byte key limit in utf8mb4.
    op.create_index('migrations_source_compute_status_idx', 'migrations',
                    ['source_compute', 'status'])
    op.create_index('migrations_dest_compute_status_idx', 'migrations',
                    ['dest_compute', 'status'])
    op.create_index('migrations_updated_at_idx', 'migrations',
                    ['updated_at'])


def _instance_columns():
    with op.batch_alter_table('instances') as batch_op:
        batch_op.add_column(sa.Column('locked', sa.Boolean(), nullable=False,
                                      server_default=sa.false()))
        batch_op.add_column(sa.Column('locked_by', sa.String(length=255),
                                      nullable=True))
        batch_op.add_column(sa.Column('locked_reason', sa.Text(),
                                      nullable=True))
        batch_op.add_column(sa.Column('description', sa.Text(),
                                      nullable=True))
        batch_op.add_column(sa.Column('old_flavor', sa.Text(),
                                      nullable=True))
        batch_op.add_column(sa.Column('new_flavor', sa.Text(),
                                      nullable=True))
        batch_op.add_column(sa.Column('shelved_at', sa.DateTime(),
                                      nullable=True))
        batch_op.add_column(sa.Column('shelved_image_id',
                                      sa.String(length=36), nullable=True))
        batch_op.add_column(sa.Column('shelved_host', sa.String(length=255),
                                      nullable=True))
        batch_op.create_index('instances_task_state_updated_at_idx',
                              ['task_state', 'updated_at'])


def upgrade():
    _key_pairs()
    _instance_actions()
    _migrations()
    _instance_columns()
