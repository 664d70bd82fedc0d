"""Build owners: which conductor a build in scheduling belongs to

Revision ID: 0006_build_owner
Revises: 0005_flavor_access
Create Date: 2026-11-24 20:40:00
"""

from alembic import op
import sqlalchemy as sa

revision = '0006_build_owner'
down_revision = '0005_flavor_access'
branch_labels = None
depends_on = None


def upgrade():
    # One nullable column: releases before this one neither read nor
    # write it, and their builds (NULL) are never taken for lost ones.
    op.add_column('instances',
                  sa.Column('build_owner', sa.String(length=255),
                            nullable=True))
