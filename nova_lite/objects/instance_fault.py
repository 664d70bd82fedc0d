"""InstanceFault: why an instance failed, kept per attempt.

A build that is rescheduled leaves one fault per failed host; the API shows
the newest one on the server.
"""

from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite.objects import base
from nova_lite.objects import fields

MESSAGE_LENGTH = 255


@base.NovaLiteObjectRegistry.register
class InstanceFault(base.NovaLiteObject, base.NovaLiteTimestampObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'instance_uuid': fields.UUIDField(),
        'code': fields.IntegerField(),
        'message': fields.StringField(),
        'details': fields.StringField(nullable=True),
        'host': fields.StringField(nullable=True),
    }
    fields.update(base.NovaLiteTimestampObject.fields)

    @staticmethod
    def _from_db_object(context, fault, row):
        base.set_all_from_db(fault, row)
        fault._context = context
        fault.obj_reset_changes()
        return fault

    @classmethod
    def from_exception(cls, context, instance_uuid, exc, host=None,
                       details=None):
        """A new (unsaved) fault describing ``exc``."""
        message = (exc.format_message() if hasattr(exc, 'format_message')
                   else str(exc)) or type(exc).__name__
        full = message if details is None else details
        return cls(context, instance_uuid=instance_uuid,
                   code=getattr(exc, 'code', 500),
                   message=message[:MESSAGE_LENGTH],
                   details=full if len(full) > MESSAGE_LENGTH or details
                   else None,
                   host=host)

    @staticmethod
    @db_api.writer
    def _create_in_db(context, values):
        row = models.InstanceFault(**values)
        context.session.add(row)
        context.session.flush()
        return row

    @base.remotable
    def create(self):
        values = self.obj_get_changes()
        values.setdefault('created_at',
                          timeutils.utcnow().replace(tzinfo=None))
        self._from_db_object(self._context, self,
                             self._create_in_db(self._context, values))

    @classmethod
    def get_latest_for_instances(cls, context, instance_uuids):
        """{instance_uuid: newest fault} for those that have one."""
        rows = _latest_faults(context, list(instance_uuids))
        return {row.instance_uuid: cls._from_db_object(context, cls(), row)
                for row in rows}


    @classmethod
    def get_all_for_instance(cls, context, instance_uuid):
        """Every fault of an instance, oldest first (conductor only)."""
        rows = _all_faults(context, instance_uuid)
        return [cls._from_db_object(context, cls(), row) for row in rows]


@db_api.reader
def _all_faults(context, instance_uuid):
    model = models.InstanceFault
    return context.session.scalars(
        sa.select(model).where(model.instance_uuid == instance_uuid)
        .order_by(model.id)).all()


@db_api.reader
def _latest_faults(context, instance_uuids):
    if not instance_uuids:
        return []
    model = models.InstanceFault
    newest = sa.select(sa.func.max(model.id)).where(
        model.instance_uuid.in_(instance_uuids)).group_by(model.instance_uuid)
    return context.session.scalars(
        sa.select(model).where(model.id.in_(newest))).all()
