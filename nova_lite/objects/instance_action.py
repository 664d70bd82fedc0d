"""InstanceAction and InstanceActionEvent: what was done to a server.

One action per user request on a server (``reboot``, ``stop``, ...),
keyed by the request id; the services that carry the request out record
events under it (``compute_reboot_instance``, ...), each with a start, a
finish and a result. ``GET /servers/{id}/os-instance-actions`` shows them.

Writes: the API creates an action with ``InstanceAction.create`` (an
instance method, so it goes through the conductor); computes and the
conductor record events with the ``event_start`` / ``event_finish``
class methods, which a compute runs through the conductor. The API never
calls those (its class methods run locally, and it does not write).
"""

from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite.db import queries
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import fields

MESSAGE_ERROR = 'Error'
RESULT_SUCCESS = 'Success'
RESULT_ERROR = 'Error'


def _now():
    return timeutils.utcnow().replace(tzinfo=None)


@base.NovaLiteObjectRegistry.register
class InstanceAction(base.NovaLiteObject, base.NovaLiteTimestampObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'action': fields.StringField(),
        'instance_uuid': fields.UUIDField(),
        'request_id': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'start_time': fields.DateTimeField(nullable=True),
        'finish_time': fields.DateTimeField(nullable=True),
        'message': fields.StringField(nullable=True),
    }
    fields.update(base.NovaLiteTimestampObject.fields)

    @staticmethod
    def _from_db_object(context, action, row):
        base.set_all_from_db(action, row)
        action._context = context
        action.obj_reset_changes()
        return action

    @classmethod
    def for_request(cls, context, instance_uuid, action):
        """A new (unsaved) action of the request ``context`` carries."""
        now = _now()
        # updated_at moves with each event (Nova's 2.58 shows and filters
        # on it); it starts with the action.
        return cls(context, action=action, instance_uuid=instance_uuid,
                   request_id=context.request_id, user_id=context.user_id,
                   project_id=context.project_id, start_time=now,
                   updated_at=now)

    @staticmethod
    @db_api.writer
    def _create_in_db(context, values):
        row = models.InstanceAction(**values)
        context.session.add(row)
        context.session.flush()
        return row

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        row = self._create_in_db(self._context, self.obj_get_changes())
        self._from_db_object(self._context, self, row)

    @staticmethod
    def create_all_in_session(session, actions):
        """Write the new ``actions`` in the caller's transaction with one
        Core INSERT (the conductor's provisioning, which needs neither
        their ids nor their objects afterwards)."""
        queries.insert_rows(session, models.InstanceAction, [
            action.obj_get_changes() for action in actions])

    @staticmethod
    @db_api.reader
    def _get_row(context, instance_uuid, request_id):
        return _action_row(context.session, instance_uuid, request_id)

    @classmethod
    @base.remotable
    def get_by_request_id(cls, context, instance_uuid, request_id):
        """The action; InstanceActionNotFound (404) if none."""
        row = cls._get_row(context, instance_uuid, request_id)
        if row is None:
            raise exception.InstanceActionNotFound(
                request_id=request_id, instance_uuid=instance_uuid)
        return cls._from_db_object(context, cls(), row)


def _action_row(session, instance_uuid, request_id):
    model = models.InstanceAction
    return session.scalars(sa.select(model).filter_by(
        instance_uuid=instance_uuid, request_id=request_id).order_by(
        model.id.desc())).first()


@base.NovaLiteObjectRegistry.register
class InstanceActionList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version, InstanceAction <= 1.0
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('InstanceAction'),
    }
    child_versions = {'1.0': '1.0'}

    @staticmethod
    @db_api.reader
    def _get_rows(context, instance_uuid, limit):
        model = models.InstanceAction
        query = sa.select(model).filter_by(
            instance_uuid=instance_uuid).order_by(
            model.created_at.desc(), model.id.desc())
        if limit is not None:
            query = query.limit(limit)
        return context.session.scalars(query).all()

    @classmethod
    @base.remotable
    def get_by_instance_uuid(cls, context, instance_uuid, limit=None):
        """The server's actions, newest first."""
        return cls(context, objects=[
            InstanceAction._from_db_object(context, InstanceAction(), row)
            for row in cls._get_rows(context, instance_uuid, limit)])

    @staticmethod
    @db_api.reader
    def _get_page_rows(context, instance_uuid, limit, marker, changes_since,
                       changes_before):
        model = models.InstanceAction
        session = context.session
        query = sa.select(model).filter_by(instance_uuid=instance_uuid)
        changed = sa.func.coalesce(model.updated_at, model.created_at)
        if changes_since is not None:
            query = query.where(changed >= changes_since)
        if changes_before is not None:
            query = query.where(changed <= changes_before)
        after = None
        if marker is not None:
            after = _action_row(session, instance_uuid, marker)
            if after is None:
                raise exception.MarkerNotFound(marker=marker)
        # Newest first: a page goes on with older rows.
        query = queries.newest_first_after(query, model, after)
        return session.scalars(query.limit(limit)).all()

    @classmethod
    def get_page(cls, context, instance_uuid, limit, marker=None,
                 changes_since=None, changes_before=None):
        """At most ``limit`` of the server's actions, newest first: those
        after the action of request ``marker`` (MarkerNotFound, 400, if
        the server has none), changed at or after ``changes_since`` and
        at or before ``changes_before``. The API's read (not remotable:
        only the API pages)."""
        return cls(context, objects=[
            InstanceAction._from_db_object(context, InstanceAction(), row)
            for row in cls._get_page_rows(context, instance_uuid, limit,
                                          marker, changes_since,
                                          changes_before)])


@base.NovaLiteObjectRegistry.register
class InstanceActionEvent(base.NovaLiteObject,
                          base.NovaLiteTimestampObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'event': fields.StringField(),
        'action_id': fields.IntegerField(nullable=True),
        'start_time': fields.DateTimeField(nullable=True),
        'finish_time': fields.DateTimeField(nullable=True),
        'result': fields.StringField(nullable=True),
        'traceback': fields.StringField(nullable=True),
        'host': fields.StringField(nullable=True),
        'details': fields.StringField(nullable=True),
    }
    fields.update(base.NovaLiteTimestampObject.fields)

    @staticmethod
    def _from_db_object(context, event, row):
        base.set_all_from_db(event, row)
        event._context = context
        event.obj_reset_changes()
        return event

    @staticmethod
    @db_api.writer
    def _start_in_db(context, instance_uuid, event, host):
        session = context.session
        action = _action_row(session, instance_uuid, context.request_id)
        if action is None:
            raise exception.InstanceActionNotFound(
                request_id=context.request_id, instance_uuid=instance_uuid)
        row = models.InstanceActionEvent(action_id=action.id, event=event,
                                         start_time=_now(), host=host)
        action.updated_at = row.start_time
        session.add(row)
        session.flush()
        return row

    @classmethod
    @base.remotable
    def event_start(cls, context, instance_uuid, event, host=None):
        """Record that ``event`` started, under the action of the
        request ``context`` carries. Raises InstanceActionNotFound when
        that request recorded no action on the instance."""
        row = cls._start_in_db(context, instance_uuid, event, host)
        return cls._from_db_object(context, cls(), row)

    @staticmethod
    @db_api.writer
    def _finish_in_db(context, instance_uuid, event, result, traceback,
                      details):
        session = context.session
        action = _action_row(session, instance_uuid, context.request_id)
        if action is None:
            raise exception.InstanceActionNotFound(
                request_id=context.request_id, instance_uuid=instance_uuid)
        model = models.InstanceActionEvent
        row = session.scalars(sa.select(model).filter_by(
            action_id=action.id, event=event).order_by(
            model.id.desc())).first()
        if row is None:
            raise exception.InstanceActionEventNotFound(
                action_id=action.id, event=event)
        row.finish_time = action.updated_at = _now()
        row.result = result
        row.traceback = traceback
        row.details = details
        if result == RESULT_ERROR:
            # As Nova: the action says an event of it failed.
            action.message = MESSAGE_ERROR
        session.flush()
        return row

    @classmethod
    @base.remotable
    def event_finish(cls, context, instance_uuid, event, result=None,
                     traceback=None, details=None):
        """Record that ``event`` finished (``result`` Success or Error,
        with the traceback and a message in ``details`` on error)."""
        row = cls._finish_in_db(context, instance_uuid, event,
                                result or RESULT_SUCCESS, traceback, details)
        return cls._from_db_object(context, cls(), row)


@base.NovaLiteObjectRegistry.register
class InstanceActionEventList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version, InstanceActionEvent <= 1.0
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('InstanceActionEvent'),
    }
    child_versions = {'1.0': '1.0'}

    @staticmethod
    @db_api.reader
    def _get_rows(context, action_id):
        model = models.InstanceActionEvent
        return context.session.scalars(sa.select(model).filter_by(
            action_id=action_id).order_by(model.id)).all()

    @classmethod
    @base.remotable
    def get_by_action(cls, context, action_id):
        """The action's events, oldest first."""
        return cls(context, objects=[
            InstanceActionEvent._from_db_object(
                context, InstanceActionEvent(), row)
            for row in cls._get_rows(context, action_id)])
