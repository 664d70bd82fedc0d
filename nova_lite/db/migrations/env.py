"""Alembic environment: runs on the connection nova_lite hands over."""

from alembic import context

from nova_lite.db import models

config = context.config
target_metadata = models.Base.metadata


def run_migrations_online():
    connection = config.attributes.get('connection')
    if connection is None:
        raise RuntimeError('Run migrations through nova-lite-manage db sync')
    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=True, compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
