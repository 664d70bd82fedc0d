"""Service: one row per running daemon, its heartbeat and its version."""

import datetime

from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite.db import queries
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import fields
from nova_lite.placement import changes as scheduler_changes

# The version of the code running a service, bumped whenever a service's
# behaviour or its RPC interfaces change in a way another service must know
# about. Each entry of SERVICE_VERSION_HISTORY is what that service version
# speaks; the index is the version.
SERVICE_VERSION = 2

SERVICE_VERSION_HISTORY = (
    # Version 0: a service that has not reported a version.
    {'compute_rpc': '1.0', 'conductor_rpc': '1.0', 'scheduler_rpc': '1.0'},
    # Version 1: the first release, acorn (the spine).
    {'compute_rpc': '1.0', 'conductor_rpc': '1.0', 'scheduler_rpc': '1.0'},
    # Version 2: bramble: quotas, aggregates, server groups, every filter;
    # scheduler RPC 1.1 (aggregate_uuids); compute RPC 1.1 (server
    # actions), 1.2 and conductor RPC 1.1 (resize, cold migration);
    # compute RPC 1.3 and conductor RPC 1.2 (snapshots, shelving), compute
    # RPC 1.4 and conductor RPC 1.3 (rebuild, evacuate), compute RPC 1.5
    # and conductor RPC 1.4 (live migration); conductor RPC 1.5
    # (provision_instances starts the build), compute RPC 1.6 (crash
    # dumps), conductor RPC 1.6 (build receipts: computes acknowledge
    # their builds), compute RPC 1.7 (diagnostics, host uptime), compute
    # RPC 1.8 (backups), conductor RPC 1.7 (creates keyed by request, so
    # the API may send them again), compute RPC 1.9 (image pre-cache),
    # conductor RPC 1.8 (a restarted compute has its lost moves settled),
    # compute RPC 1.10 and conductor RPC 1.9 (a revert frees the
    # destination once its VM is gone), conductor RPC 1.10 (a compute's
    # receipt of a build and its first save in one cast), scheduler RPC
    # 1.2 (notices carry the provider generations their writers know),
    # scheduler RPC 1.3 (notices carry instances' new vm and task states).
    {'compute_rpc': '1.10', 'conductor_rpc': '1.10',
     'scheduler_rpc': '1.3'},
)


COMPUTE_BINARY = 'nova-lite-compute'

# The fields of a compute service that host states depend on: a write of
# one of them tells the schedulers (``placement.changes``); a heartbeat
# does only when it brings a silent service back.
_SCHEDULED_FIELDS = frozenset(('disabled', 'disabled_reason', 'forced_down',
                               'host', 'binary'))


def _utcnow():
    return timeutils.utcnow().replace(tzinfo=None)


def _note(session, row):
    if row.binary == COMPUTE_BINARY:
        scheduler_changes.note_host(session, row.host)


def up_at(forced_down, last_seen_up, created_at, now, down_time):
    """Whether a service of these fields is up as of ``now`` (naive UTC)
    with ``down_time`` seconds (``Service.up_at``; the scheduler's bulk
    load reads the fields without the object)."""
    if forced_down:
        return False
    last = last_seen_up or created_at
    if last is None:
        return False
    age = (now - last.replace(tzinfo=None)).total_seconds()
    return abs(age) <= down_time


@base.NovaLiteObjectRegistry.register
class Service(base.NovaLiteObject, base.NovaLiteTimestampObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'host': fields.StringField(),
        'binary': fields.StringField(),
        'topic': fields.StringField(nullable=True),
        'report_count': fields.IntegerField(default=0),
        'disabled': fields.BooleanField(default=False),
        'disabled_reason': fields.StringField(nullable=True),
        'forced_down': fields.BooleanField(default=False),
        'last_seen_up': fields.DateTimeField(nullable=True),
        'version': fields.IntegerField(default=0),
    }
    fields.update(base.NovaLiteTimestampObject.fields)

    @staticmethod
    def _from_db_object(context, service, db_service):
        base.set_all_from_db(service, db_service)
        service._context = context
        service.obj_reset_changes()
        return service

    @property
    def is_up(self):
        """True if the last heartbeat is recent and not forced down.

        The last heartbeat is ``last_seen_up``, or ``created_at`` for a
        service that never reported, as in Nova: ``updated_at`` changes
        with any write (an operator disabling the service), which is no
        sign of life.
        """
        return self.up_at(_utcnow(), CONF.service_down_time)

    def up_at(self, now, down_time):
        """``is_up`` as of ``now`` (naive UTC) with ``down_time`` seconds:
        for callers judging many services at one instant."""
        if self.forced_down:
            return False
        # created_at read only without a heartbeat (it may be unset).
        return up_at(False, self.last_seen_up or self.created_at, None,
                     now, down_time)

    @staticmethod
    @db_api.reader
    def _get_from_db(context, **filters):
        return queries.first_or_raise(
            context.session, models.Service,
            lambda f: exception.ServiceNotFound(
                service_id=queries.describe(f)), **filters)

    @classmethod
    @base.remotable
    def get_by_id(cls, context, service_id):
        return cls._from_db_object(context, cls(),
                                   cls._get_from_db(context, id=service_id))

    @classmethod
    @base.remotable
    def get_by_uuid(cls, context, uuid):
        return cls._from_db_object(context, cls(),
                                   cls._get_from_db(context, uuid=uuid))

    @classmethod
    @base.remotable
    def get_by_host_and_binary(cls, context, host, binary):
        return cls._from_db_object(
            context, cls(),
            cls._get_from_db(context, host=host, binary=binary))

    @staticmethod
    @db_api.writer
    def _create_in_db(context, values):
        row = queries.insert(
            context.session, models.Service(**values),
            lambda error: exception.ServiceExists(binary=values['binary'],
                                                  host=values['host']))
        _note(context.session, row)
        return row

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        values = self.obj_get_changes()
        values.setdefault('uuid', uuidutils.generate_uuid())
        values.setdefault('version', SERVICE_VERSION)
        self._from_db_object(self._context, self,
                             self._create_in_db(self._context, values))

    @staticmethod
    @db_api.writer
    def _save_in_db(context, service_id, values, revived=False):
        """Write ``values``; tell the schedulers when they change what
        host states hold, or (``revived``) a heartbeat ends a silence."""
        row = queries.update_and_reload(context.session, models.Service,
                                        service_id, values)
        if revived or _SCHEDULED_FIELDS.intersection(values):
            _note(context.session, row)
        return row

    def _persist_changes(self):
        """Write the changed fields; return their values."""
        values = self.obj_get_changes()
        values.pop('id', None)
        values['updated_at'] = _utcnow()
        self._from_db_object(self._context, self,
                             self._save_in_db(self._context, self.id, values))
        return values

    @base.remotable
    def save(self):
        """Write the changes. Disabling or enabling a compute service also
        sets or clears COMPUTE_STATUS_DISABLED on its nodes' providers at
        once, so the scheduler's prefilter stops (or resumes) using them
        without waiting for the compute's next report. The remotable entry
        the API calls; it runs in the conductor, where
        ``conductor.tasks.service_disabled`` writes the trait."""
        from nova_lite.conductor.tasks import service_disabled
        service_disabled.save(self._context, self)

    @base.remotable
    def heartbeat(self):
        """Record that this service is alive, touching only liveness columns.

        An administrator's concurrent change (disabled, forced_down) is never
        overwritten by a heartbeat, and the object comes back refreshed.
        """
        now = _utcnow()
        values = {'report_count': models.Service.report_count + 1,
                  'last_seen_up': now,
                  'version': SERVICE_VERSION}
        # Judged on this copy, as its service last read or wrote it: a
        # compute (re)starting after a silence holds its old heartbeat. A
        # forced down service stays down whatever it beats.
        revived = not (self.forced_down
                       or self.up_at(now, CONF.service_down_time))
        self._from_db_object(self._context, self,
                             self._save_in_db(self._context, self.id, values,
                                              revived))

    @base.remotable
    def destroy(self):
        """Delete the service; a compute's host also leaves its
        aggregates and loses its compute nodes and their providers. Raises
        ServiceHasServers or ServiceHasMoves (409) while that host has
        servers or moves in progress. Runs in the conductor
        (``conductor.tasks.service_delete``)."""
        from nova_lite.conductor.tasks import service_delete
        service_delete.delete(self._context, self)

    @staticmethod
    @db_api.reader
    def _min_version_from_db(context, binary):
        model = models.Service
        up_since = _utcnow() - datetime.timedelta(
            seconds=CONF.service_down_time)
        return context.session.scalar(
            sa.select(sa.func.min(model.version)).where(
                model.binary == binary,
                model.forced_down.is_(False),
                model.last_seen_up >= up_since))

    @classmethod
    @base.remotable
    def get_minimum_version(cls, context, binary):
        """Lowest version among the running services of ``binary``.

        Services that are down (no heartbeat within service_down_time) or
        forced down are left out: unlike Nova, a dead old service does not
        pin the others forever. 0 if none runs.
        """
        return cls._min_version_from_db(context, binary) or 0


@base.NovaLiteObjectRegistry.register
class ServiceList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version, Service <= 1.0
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('Service'),
    }

    @staticmethod
    @db_api.reader
    def _get_all_from_db(context, binary=None, host=None):
        query = sa.select(models.Service).order_by(models.Service.id)
        if binary is not None:
            query = query.where(models.Service.binary == binary)
        if host is not None:
            query = query.where(models.Service.host == host)
        return context.session.scalars(query).all()

    @classmethod
    @base.remotable
    def get_all(cls, context, binary=None, host=None):
        rows = cls._get_all_from_db(context, binary=binary, host=host)
        return cls(context, objects=[
            Service._from_db_object(context, Service(), row) for row in rows])
