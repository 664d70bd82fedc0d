"""Host aggregates and server groups

Revision ID: 0003_aggregates_groups
Revises: 0002_quotas
Create Date: 2026-11-21 09:00:01
"""

revision = '0003_aggregates_groups'
down_revision = '0002_quotas'
branch_labels = None
depends_on = None


def upgrade():
    pass
