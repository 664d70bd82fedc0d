"""KeyPair and KeyPairList: a user's public keys, by name.

Key pairs belong to a user (not a project), are soft-deleted, and count
against the ``key_pairs`` quota of their user when created.
"""

from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import fields
from nova_lite.quota import limits as quota_limits

TYPES = ('ssh', 'x509')


def _now():
    return timeutils.utcnow().replace(tzinfo=None)


@base.NovaLiteObjectRegistry.register
class KeyPair(base.NovaLiteObject, base.NovaLitePersistentObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'name': fields.StringField(),
        'user_id': fields.StringField(),
        'fingerprint': fields.StringField(),
        'public_key': fields.StringField(),
        'type': fields.StringField(default='ssh'),
    }
    fields.update(base.NovaLitePersistentObject.fields)

    @staticmethod
    def _from_db_object(context, keypair, row):
        base.set_all_from_db(keypair, row, skip=('deleted',))
        keypair.deleted = bool(row.deleted)
        keypair._context = context
        keypair.obj_reset_changes()
        return keypair

    @staticmethod
    @db_api.reader
    def _get_row(context, user_id, name):
        return context.session.scalars(sa.select(models.KeyPair).filter_by(
            user_id=user_id, name=name, deleted=0)).first()

    @classmethod
    @base.remotable
    def get_by_name(cls, context, user_id, name):
        """The live key pair; KeypairNotFound (404) if none."""
        row = cls._get_row(context, user_id, name)
        if row is None:
            raise exception.KeypairNotFound(user_id=user_id, name=name)
        return cls._from_db_object(context, cls(), row)

    @staticmethod
    @db_api.writer
    def _create_in_db(context, values, project_id):
        session = context.session
        model = models.KeyPair
        # Serialise a user's creations: two at once count each other.
        live = session.scalars(sa.select(model).filter_by(
            user_id=values['user_id'], deleted=0).with_for_update()).all()
        if any(row.name == values['name'] for row in live):
            raise exception.KeyPairExists(key_name=values['name'])
        quota_limits.check_countable(
            context, project_id, values['user_id'], 'key_pairs', len(live),
            1, quota_class=context.quota_class)
        row = model(deleted=0, **values)
        session.add(row)
        session.flush()
        return row

    @base.remotable
    def create(self):
        """Write the key pair. Raises KeyPairExists (409) for a name the
        user already has, OverQuota (403) past ``key_pairs``."""
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        values = self.obj_get_changes()
        values.pop('deleted', None)
        row = self._create_in_db(self._context, values,
                                 self._context.project_id)
        self._from_db_object(self._context, self, row)

    @staticmethod
    @db_api.writer
    def _destroy_in_db(context, keypair_id, user_id, name):
        model = models.KeyPair
        # By id: a key pair deleted and created again under its name is
        # another key pair, which this one's destroy must not remove.
        row = context.session.scalars(sa.select(model).filter_by(
            id=keypair_id, deleted=0)).first()
        if row is None:
            raise exception.KeypairNotFound(user_id=user_id, name=name)
        row.deleted = row.id
        row.deleted_at = _now()

    @base.remotable
    def destroy(self):
        """Soft-delete it; KeypairNotFound (404) if already gone."""
        self._destroy_in_db(self._context, self.id, self.user_id, self.name)


@base.NovaLiteObjectRegistry.register
class KeyPairList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version, KeyPair <= 1.0
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('KeyPair'),
    }
    child_versions = {'1.0': '1.0'}

    @staticmethod
    @db_api.reader
    def _get_rows(context, user_id, limit, marker):
        model = models.KeyPair
        query = sa.select(model).filter_by(user_id=user_id, deleted=0)
        if marker is not None:
            marker_row = context.session.scalars(
                query.filter_by(name=marker)).first()
            if marker_row is None:
                raise exception.MarkerNotFound(marker=marker)
            query = query.where(model.name > marker)
        query = query.order_by(model.name)
        if limit is not None:
            query = query.limit(limit)
        return context.session.scalars(query).all()

    @classmethod
    @base.remotable
    def get_by_user(cls, context, user_id, limit=None, marker=None):
        """The user's live key pairs, by name (after ``marker``)."""
        return cls(context, objects=[
            KeyPair._from_db_object(context, KeyPair(), row)
            for row in cls._get_rows(context, user_id, limit, marker)])
