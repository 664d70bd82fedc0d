"""Server tags (compute API 2.26)

Revision ID: 0007_server_tags
Revises: 0006_build_owner
Create Date: 2026-11-24 23:40:00
"""

from alembic import op
import sqlalchemy as sa

revision = '0007_server_tags'
down_revision = '0006_build_owner'
branch_labels = None
depends_on = None


def upgrade():
    # A new table only: releases before this one never read it.
    op.create_table(
        'tags',
        sa.Column('resource_id', sa.String(length=36), nullable=False),
        sa.Column('tag', sa.String(length=80), nullable=False),
        sa.PrimaryKeyConstraint('resource_id', 'tag'))
    op.create_index('tags_tag_idx', 'tags', ['tag'])
