"""Tag and TagList: a server's tags (compute API 2.26).

A tag is a string of its server (``resource_id`` is the instance's
uuid). Writes lock the instance's row, so two requests adding tags at
once count each other against ``MAX_TAG_COUNT``; a deleted or unknown
instance is InstanceNotFound (404).
"""

import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import fields

MAX_TAG_COUNT = 50
MAX_TAG_LENGTH = 60


def _lock_instance(context, resource_id):
    row = context.session.scalars(
        sa.select(models.Instance.id).filter_by(
            uuid=resource_id, deleted=0).with_for_update()).first()
    if row is None:
        raise exception.InstanceNotFound(instance_id=resource_id)


def _tags_of(context, resource_id):
    return list(context.session.scalars(
        sa.select(models.Tag.tag).filter_by(resource_id=resource_id)
        .order_by(models.Tag.tag)).all())


def _check_count(count):
    if count > MAX_TAG_COUNT:
        raise exception.TooManyInstanceTags(limit=MAX_TAG_COUNT)


@base.NovaLiteObjectRegistry.register
class Tag(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'resource_id': fields.StringField(),
        'tag': fields.StringField(),
    }

    @staticmethod
    @db_api.writer
    def _add_in_db(context, resource_id, tag):
        _lock_instance(context, resource_id)
        tags = _tags_of(context, resource_id)
        if tag in tags:
            return False
        _check_count(len(tags) + 1)
        context.session.add(models.Tag(resource_id=resource_id, tag=tag))
        return True

    @base.remotable
    def create(self):
        """Add the tag; True if new, False if the server had it.
        TooManyInstanceTags (400) past MAX_TAG_COUNT."""
        return self._add_in_db(self._context, self.resource_id, self.tag)

    @staticmethod
    @db_api.reader
    def _exists_in_db(context, resource_id, tag):
        return context.session.scalars(sa.select(models.Tag.tag).filter_by(
            resource_id=resource_id, tag=tag)).first() is not None

    @classmethod
    @base.remotable
    def exists(cls, context, resource_id, tag):
        return cls._exists_in_db(context, resource_id, tag)

    @staticmethod
    @db_api.writer
    def _destroy_in_db(context, resource_id, tag):
        _lock_instance(context, resource_id)
        deleted = context.session.execute(sa.delete(models.Tag).filter_by(
            resource_id=resource_id, tag=tag)).rowcount
        if not deleted:
            raise exception.InstanceTagNotFound(server_id=resource_id,
                                                tag=tag)

    @classmethod
    @base.remotable
    def destroy(cls, context, resource_id, tag):
        """Remove the tag; InstanceTagNotFound (404) if it had none."""
        cls._destroy_in_db(context, resource_id, tag)


@base.NovaLiteObjectRegistry.register
class TagList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version, Tag <= 1.0
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('Tag'),
    }
    child_versions = {'1.0': '1.0'}

    @classmethod
    def _from_names(cls, context, resource_id, names):
        return cls(context, objects=[
            Tag(context, resource_id=resource_id, tag=name)
            for name in names])

    @staticmethod
    @db_api.reader
    def _get_in_db(context, resource_ids):
        rows = context.session.execute(
            sa.select(models.Tag.resource_id, models.Tag.tag)
            .where(models.Tag.resource_id.in_(resource_ids))
            .order_by(models.Tag.tag)).all()
        by_id = {resource_id: [] for resource_id in resource_ids}
        for resource_id, tag in rows:
            by_id[resource_id].append(tag)
        return by_id

    @classmethod
    @base.remotable
    def get_by_resource_id(cls, context, resource_id):
        """The server's tags, sorted."""
        names = cls._get_in_db(context, [resource_id])[resource_id]
        return cls._from_names(context, resource_id, names)

    @classmethod
    def get_names_by_resource_ids(cls, context, resource_ids):
        """{resource_id: [tag, ...]} for many servers in one query."""
        if not resource_ids:
            return {}
        return cls._get_in_db(context, list(resource_ids))

    @staticmethod
    @db_api.writer
    def _replace_in_db(context, resource_id, tags):
        _lock_instance(context, resource_id)
        wanted = sorted(set(tags))
        _check_count(len(wanted))
        context.session.execute(sa.delete(models.Tag).filter_by(
            resource_id=resource_id))
        context.session.add_all([models.Tag(resource_id=resource_id, tag=t)
                                 for t in wanted])
        return wanted

    @classmethod
    @base.remotable
    def create(cls, context, resource_id, tags):
        """Replace all the server's tags with ``tags`` (duplicates once)."""
        names = cls._replace_in_db(context, resource_id, tags)
        return cls._from_names(context, resource_id, names)

    @classmethod
    @base.remotable
    def destroy(cls, context, resource_id):
        """Remove all the server's tags."""
        cls._replace_in_db(context, resource_id, [])
