"""Migration and MigrationList: the record of a server's move.

A resize, a cold or live migration and an evacuation each write one row
(``migration_type`` resize, migration, live-migration, evacuation) whose
``status`` follows the move (pre-migrating, migrating, post-migrating,
finished, confirming, confirmed, reverting, reverted, accepted, done,
failed, error). During a resize or cold migration the migration's uuid is
the placement consumer holding the source host's allocations, as in Nova.
"""

from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite.db import queries
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import fields

MIGRATION_TYPES = ('migration', 'resize', 'live-migration', 'evacuation')
_LIST_FILTERS = ('instance_uuid', 'status', 'migration_type',
                 'source_compute', 'dest_compute', 'project_id', 'user_id',
                 'hidden')


def _now():
    return timeutils.utcnow().replace(tzinfo=None)


@base.NovaLiteObjectRegistry.register
class Migration(base.NovaLiteObject, base.NovaLitePersistentObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'source_compute': fields.StringField(nullable=True),
        'dest_compute': fields.StringField(nullable=True),
        'source_node': fields.StringField(nullable=True),
        'dest_node': fields.StringField(nullable=True),
        'dest_host': fields.StringField(nullable=True),
        'old_instance_type_id': fields.IntegerField(nullable=True),
        'new_instance_type_id': fields.IntegerField(nullable=True),
        'status': fields.StringField(nullable=True),
        'migration_type': fields.StringField(nullable=True),
        'instance_uuid': fields.UUIDField(nullable=True),
        'hidden': fields.BooleanField(default=False),
        'cross_cell_move': fields.BooleanField(default=False),
        'user_id': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
    }
    fields.update(base.NovaLitePersistentObject.fields)

    @staticmethod
    def _from_db_object(context, migration, row):
        base.set_all_from_db(migration, row, skip=('deleted',))
        migration.deleted = bool(row.deleted)
        migration._context = context
        migration.obj_reset_changes()
        return migration

    @staticmethod
    @db_api.reader
    def _get_row(context, **filters):
        return context.session.scalars(sa.select(models.Migration).filter_by(
            deleted=0, **filters)).first()

    @classmethod
    @base.remotable
    def get_by_id(cls, context, migration_id):
        row = cls._get_row(context, id=migration_id)
        if row is None:
            raise exception.MigrationNotFound(migration_id=migration_id)
        return cls._from_db_object(context, cls(), row)

    @classmethod
    @base.remotable
    def get_by_uuid(cls, context, uuid):
        row = cls._get_row(context, uuid=uuid)
        if row is None:
            raise exception.MigrationNotFound(migration_id=uuid)
        return cls._from_db_object(context, cls(), row)

    @classmethod
    @base.remotable
    def get_by_instance_and_status(cls, context, instance_uuid, status):
        """The instance's live migration record in ``status``;
        MigrationNotFoundByStatus (404) if none."""
        row = cls._get_row(context, instance_uuid=instance_uuid,
                           status=status)
        if row is None:
            raise exception.MigrationNotFoundByStatus(
                instance_id=instance_uuid, status=status)
        return cls._from_db_object(context, cls(), row)

    @staticmethod
    @db_api.writer
    def _create_in_db(context, values):
        row = models.Migration(deleted=0, **values)
        context.session.add(row)
        context.session.flush()
        return row

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        values = self.obj_get_changes()
        values.pop('deleted', None)
        self._from_db_object(self._context, self,
                             self._create_in_db(self._context, values))

    @staticmethod
    @db_api.writer
    def _save_in_db(context, migration_id, values):
        model = models.Migration
        values['updated_at'] = _now()
        result = context.session.execute(sa.update(model).where(
            model.id == migration_id, model.deleted == 0).values(**values))
        if result.rowcount != 1:
            raise exception.MigrationNotFound(migration_id=migration_id)
        return values['updated_at']

    @staticmethod
    @db_api.writer
    def _claim_in_db(context, migration_id, status, updated_at):
        model = models.Migration
        now = _now()
        result = context.session.execute(sa.update(model).where(
            model.id == migration_id, model.deleted == 0,
            model.status == status,
            model.updated_at == updated_at).values(updated_at=now))
        return now if result.rowcount == 1 else None

    def claim_unchanged(self):
        """Move ``updated_at`` if nobody wrote the record since it was
        read (same status, same ``updated_at``); False if somebody did.
        Of two conductors taking up the same stale record, one wins.
        Conductor only (not remotable)."""
        if self.updated_at is None:
            return False
        updated_at = self._claim_in_db(
            self._context, self.id, self.status,
            self.updated_at.replace(tzinfo=None))
        if updated_at is None:
            return False
        self.updated_at = updated_at
        self.obj_reset_changes(['updated_at'])
        return True

    @base.remotable
    def save(self):
        """Write the changed fields."""
        values = self.obj_get_changes()
        values.pop('id', None)
        values.pop('deleted', None)
        if values:
            self.updated_at = self._save_in_db(self._context, self.id,
                                               values)
        self.obj_reset_changes()


def _filtered(filters):
    """A select of the migrations (not deleted) matching ``filters``."""
    model = models.Migration
    query = sa.select(model).filter_by(deleted=0)
    for key in _LIST_FILTERS:
        value = filters.get(key)
        if value is None:
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        query = query.where(getattr(model, key).in_(list(values)))
    if filters.get('host'):
        query = query.where(sa.or_(
            model.source_compute == filters['host'],
            model.dest_compute == filters['host']))
    return query


@base.NovaLiteObjectRegistry.register
class MigrationList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version, Migration <= 1.0
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('Migration'),
    }
    child_versions = {'1.0': '1.0'}

    @staticmethod
    @db_api.reader
    def _get_rows(context, filters, limit):
        model = models.Migration
        query = _filtered(filters).order_by(model.created_at.desc(),
                                            model.id.desc())
        if limit is not None:
            query = query.limit(limit)
        return context.session.scalars(query).all()

    @staticmethod
    @db_api.reader
    def _get_page_rows(context, filters, limit, marker, changes_since,
                       changes_before):
        model = models.Migration
        session = context.session
        query = _filtered(filters)
        # As Nova: a migration never updated has no updated_at.
        if changes_since is not None:
            query = query.where(model.updated_at >= changes_since)
        if changes_before is not None:
            query = query.where(model.updated_at <= changes_before)
        after = None
        if marker is not None:
            after = session.scalars(sa.select(model).filter_by(
                uuid=marker, deleted=0)).first()
            if after is None:
                raise exception.MarkerNotFound(marker=marker)
        # Newest first: a page goes on with older rows.
        query = queries.newest_first_after(query, model, after)
        return session.scalars(query.limit(limit)).all()

    @classmethod
    def get_page(cls, context, filters, limit, marker=None,
                 changes_since=None, changes_before=None):
        """At most ``limit`` migrations matching ``filters`` (as
        get_by_filters), newest first: those after the migration of uuid
        ``marker`` (MarkerNotFound, 400, if none), updated at or after
        ``changes_since`` and at or before ``changes_before``. The API's
        read (not remotable)."""
        return cls(context, objects=[
            Migration._from_db_object(context, Migration(), row)
            for row in cls._get_page_rows(context, filters or {}, limit,
                                          marker, changes_since,
                                          changes_before)])

    @classmethod
    @base.remotable
    def get_by_filters(cls, context, filters, limit=None):
        """Migrations matching ``filters`` (keys: host (source or
        destination), and each of instance_uuid, status, migration_type,
        source_compute, dest_compute, project_id, user_id, hidden as a
        value or a list), newest first."""
        return cls(context, objects=[
            Migration._from_db_object(context, Migration(), row)
            for row in cls._get_rows(context, filters or {}, limit)])
