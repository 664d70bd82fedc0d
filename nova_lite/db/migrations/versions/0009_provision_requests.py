"""The keys of boot requests whose records are written (conductor RPC 1.7)

Revision ID: 0009_provision_requests
Revises: 0008_trusted_certs
Create Date: 2026-11-25 07:45:00
"""

from alembic import op
import sqlalchemy as sa

revision = '0009_provision_requests'
down_revision = '0008_trusted_certs'
branch_labels = None
depends_on = None


def upgrade():
    # A new table: releases before this one never read or write it.
    op.create_table(
        'provision_requests',
        sa.Column('request_key', sa.String(255), primary_key=True),
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.Column('reservation_id', sa.String(255), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
    )
    op.create_index('provision_requests_created_at_idx',
                    'provision_requests', ['created_at'])
