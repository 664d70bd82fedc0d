"""Trusted image certificates of a server (compute API 2.63)

Revision ID: 0008_trusted_certs
Revises: 0007_server_tags
Create Date: 2026-11-25 04:40:00
"""

from alembic import op
import sqlalchemy as sa

revision = '0008_trusted_certs'
down_revision = '0007_server_tags'
branch_labels = None
depends_on = None


def upgrade():
    # One nullable column (a JSON list of certificate ids): releases
    # before this one neither read nor write it.
    op.add_column('instances',
                  sa.Column('trusted_certs', sa.Text(), nullable=True))
