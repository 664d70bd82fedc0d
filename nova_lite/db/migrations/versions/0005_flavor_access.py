"""Flavor access: which projects may use a private flavor

Revision ID: 0005_flavor_access
Revises: 0004_server_lifecycle
Create Date: 2026-11-24 16:15:00
"""

from alembic import op
import sqlalchemy as sa

revision = '0005_flavor_access'
down_revision = '0004_server_lifecycle'
branch_labels = None
depends_on = None


def upgrade():
    # A new table only: releases before this one never read it, and
    # treat every private flavor as their administrators' alone.
    op.create_table(
        'flavor_projects',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('flavor_id', sa.Integer(), nullable=False),
        sa.Column('project_id', sa.String(length=255), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['flavor_id'], ['flavors.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'flavor_id', 'project_id',
            name='uniq_flavor_projects0flavor_id0project_id'))
    op.create_index('flavor_projects_project_id_idx', 'flavor_projects',
                    ['project_id'])
