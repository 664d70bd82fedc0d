"""Quotas: limits, classes, usages and reservations

Revision ID: 0002_quotas
Revises: 0001_initial
Create Date: 2026-11-21 09:00:00
"""

from alembic import op
import sqlalchemy as sa

revision = '0002_quotas'
down_revision = '0001_initial'
branch_labels = None
depends_on = None


def _timestamps():
    return [sa.Column('created_at', sa.DateTime(), nullable=True),
            sa.Column('updated_at', sa.DateTime(), nullable=True)]


def _limit_table(name, scope_columns, unique_name):
    op.create_table(
        name,
        sa.Column('id', sa.Integer(), nullable=False),
        *[sa.Column(column, sa.String(length=255), nullable=False)
          for column in scope_columns],
        sa.Column('resource', sa.String(length=255), nullable=False),
        sa.Column('hard_limit', sa.Integer(), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(*scope_columns, 'resource', name=unique_name))


def upgrade():
    _limit_table('quotas', ['project_id'],
                 'uniq_quotas0project_id0resource')
    _limit_table('project_user_quotas', ['project_id', 'user_id'],
                 'uniq_project_user_quotas0project_id0user_id0resource')
    _limit_table('quota_classes', ['class_name'],
                 'uniq_quota_classes0class_name0resource')
    op.create_table(
        'quota_usages',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('project_id', sa.String(length=255), nullable=False),
        sa.Column('user_id', sa.String(length=255), nullable=False),
        sa.Column('resource', sa.String(length=255), nullable=False),
        sa.Column('in_use', sa.Integer(), nullable=False),
        sa.Column('reserved', sa.Integer(), nullable=False),
        sa.Column('until_refresh', sa.Integer(), nullable=True),
        sa.Column('refreshed_at', sa.DateTime(), nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'project_id', 'user_id', 'resource',
            name='uniq_quota_usages0project_id0user_id0resource'))
    op.create_table(
        'reservations',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('project_id', sa.String(length=255), nullable=False),
        sa.Column('user_id', sa.String(length=255), nullable=False),
        sa.Column('resource', sa.String(length=255), nullable=False),
        sa.Column('delta', sa.Integer(), nullable=False),
        sa.Column('expire', sa.DateTime(), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid', 'resource',
                            name='uniq_reservations0uuid0resource'))
    with op.batch_alter_table('reservations', schema=None) as batch_op:
        batch_op.create_index('reservations_expire_idx', ['expire'],
                              unique=False)
    # A build that ends in ERROR releases its quota usage at once; the mark
    # keeps the later delete from releasing it a second time. Rows written
    # by an older release default to "not released".
    with op.batch_alter_table('instances', schema=None) as batch_op:
        batch_op.add_column(sa.Column('quota_released', sa.Boolean(),
                                      server_default=sa.false(),
                                      nullable=False))
