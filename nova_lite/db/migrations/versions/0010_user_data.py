"""The user data of a server (compute API 2.3 and 2.57)

Revision ID: 0010_user_data
Revises: 0009_provision_requests
Create Date: 2026-11-25 08:55:00
"""

from alembic import op
import sqlalchemy as sa

revision = '0010_user_data'
down_revision = '0009_provision_requests'
branch_labels = None
depends_on = None


def upgrade():
    # One nullable column (base64 text, at most 65535 characters):
    # releases before this one neither read nor write it.
    op.add_column('instances',
                  sa.Column('user_data', sa.Text(), nullable=True))
