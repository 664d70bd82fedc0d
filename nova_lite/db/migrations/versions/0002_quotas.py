"""Quotas: limits, classes, usages and reservations

Revision ID: 0002_quotas
Revises: 0001_initial
Create Date: 2026-11-21 09:00:00
"""

revision = '0002_quotas'
down_revision = '0001_initial'
branch_labels = None
depends_on = None


def upgrade():
    pass
