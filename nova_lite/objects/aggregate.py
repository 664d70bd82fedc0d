"""Aggregate and AggregateList: host aggregates, as Nova has them.

An aggregate is a named set of compute hosts with string metadata; its
``availability_zone`` metadata makes it an availability zone. Every
aggregate is mirrored into placement, in the same transaction as the
membership: ``conductor.tasks.aggregate_hosts`` composes the two, this
module only reads and writes the aggregate's rows.
"""

from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite.db import queries
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import fields
from nova_lite.placement import changes as scheduler_changes

AZ_KEY = 'availability_zone'


def _get_row(session, **filters):
    [value] = filters.values()
    return queries.first_or_raise(
        session, models.Aggregate,
        lambda f: exception.AggregateNotFound(aggregate_id=value),
        **filters)


@base.NovaLiteObjectRegistry.register
class Aggregate(base.NovaLiteObject, base.NovaLiteTimestampObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(),
        'hosts': fields.ListOfStringsField(default=[]),
        'metadata': fields.DictOfStringsField(default={}),
    }
    fields.update(base.NovaLiteTimestampObject.fields)

    @property
    def availability_zone(self):
        """The zone this aggregate defines, or None."""
        return (self.metadata or {}).get(AZ_KEY)

    @staticmethod
    def _from_db_object(context, aggregate, row):
        base.set_all_from_db(aggregate, row, skip=('hosts', 'metadata'))
        aggregate.hosts = [link.host for link in row.hosts]
        aggregate.metadata = {item.key: item.value
                              for item in row.metadata_items}
        aggregate._context = context
        aggregate.obj_reset_changes()
        return aggregate

    @staticmethod
    @db_api.reader
    def _get_from_db(context, **filters):
        return _get_row(context.session, **filters)

    @classmethod
    @base.remotable
    def get_by_id(cls, context, aggregate_id):
        return cls._from_db_object(context, cls(),
                                   cls._get_from_db(context, id=aggregate_id))

    @classmethod
    @base.remotable
    def get_by_uuid(cls, context, uuid):
        return cls._from_db_object(context, cls(),
                                   cls._get_from_db(context, uuid=uuid))

    @staticmethod
    @db_api.writer
    def _create_in_db(context, values, metadata):
        row = models.Aggregate(**values)
        row.hosts = []
        row.metadata_items = [models.AggregateMetadata(key=k, value=v)
                              for k, v in metadata.items()]
        row = queries.insert(
            context.session, row, lambda error: exception.AggregateNameExists(
                aggregate_name=values['name']))
        scheduler_changes.note(context.session, aggregates=[row.uuid])
        return row

    @base.remotable
    def create(self):
        """Insert the aggregate with its metadata (no hosts yet).

        Raises AggregateNameExists (409) when the name is taken.
        """
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        if self.obj_attr_is_set('hosts') and self.hosts:
            raise exception.ObjectActionError(
                action='create', reason='hosts are added with add_host')
        values = self.obj_get_changes()
        metadata = values.pop('metadata', None) or {}
        values.pop('hosts', None)
        values.setdefault('uuid', uuidutils.generate_uuid())
        self._from_db_object(self._context, self,
                             self._create_in_db(self._context, values,
                                                metadata))

    @staticmethod
    @db_api.writer
    def _rename_in_db(context, aggregate_id, name):
        row = _get_row(context.session, id=aggregate_id)
        if row.name != name:
            row.name = name
            # Flushed here so a taken name is a 409, not a 500 at commit.
            queries.insert(context.session, row,
                           lambda error: exception.AggregateNameExists(
                               aggregate_name=name))
            scheduler_changes.note(context.session, aggregates=[row.uuid])
        return row

    @base.remotable
    def save(self):
        """Write a new name (hosts and metadata have their own methods).

        Raises AggregateNameExists (409) when the name is taken.
        """
        changes = self.obj_get_changes()
        if set(changes) - {'name', 'updated_at'}:
            raise exception.ObjectActionError(
                action='save',
                reason='only the name; use add_host, delete_host and '
                       'update_metadata')
        if 'name' in changes:
            row = self._rename_in_db(self._context, self.id, self.name)
            self._from_db_object(self._context, self, row)

    @staticmethod
    @db_api.writer
    def _update_metadata_in_db(context, aggregate_id, updates):
        session = context.session
        row = _get_row(session, id=aggregate_id)
        items = {item.key: item for item in row.metadata_items}
        for key, value in updates.items():
            item = items.get(key)
            if value is None:
                if item is not None:
                    row.metadata_items.remove(item)
            elif item is None:
                row.metadata_items.append(
                    models.AggregateMetadata(key=key, value=value))
            else:
                item.value = value
        row.updated_at = timeutils.utcnow().replace(tzinfo=None)
        session.flush()
        scheduler_changes.note(session, aggregates=[row.uuid])
        return row

    @base.remotable
    def update_metadata(self, updates):
        """Apply {key: value}: a value of None removes the key."""
        row = self._update_metadata_in_db(self._context, self.id,
                                          dict(updates))
        self._from_db_object(self._context, self, row)

    @staticmethod
    def _add_host_in_session(session, aggregate_id, host):
        """Write ``host``'s membership; return the aggregate row. Raises
        AggregateHostExists (409)."""
        row = _get_row(session, id=aggregate_id)
        if any(link.host == host for link in row.hosts):
            raise exception.AggregateHostExists(aggregate_id=aggregate_id,
                                                host=host)
        row.hosts.append(models.AggregateHost(host=host))
        queries.insert(session, row,
                       lambda error: exception.AggregateHostExists(
                           aggregate_id=aggregate_id, host=host))
        scheduler_changes.note(session, aggregates=[row.uuid])
        return row

    @base.remotable
    def add_host(self, host):
        """Put ``host`` in the aggregate and its nodes' providers in the
        placement aggregate; return the provider uuids changed.

        Raises AggregateHostExists (409). The remotable entry the API
        calls; it runs in the conductor (``conductor.tasks.aggregate_hosts``
        mirrors the membership into placement).
        """
        from nova_lite.conductor.tasks import aggregate_hosts
        return aggregate_hosts.add_host(self._context, self, host)

    @staticmethod
    def _delete_host_in_session(session, aggregate_id, host):
        """Remove ``host``'s membership; return the aggregate row. Raises
        AggregateHostNotFound (404)."""
        row = _get_row(session, id=aggregate_id)
        link = next((h for h in row.hosts if h.host == host), None)
        if link is None:
            raise exception.AggregateHostNotFound(aggregate_id=aggregate_id,
                                                  host=host)
        row.hosts.remove(link)
        session.flush()
        scheduler_changes.note(session, aggregates=[row.uuid])
        return row

    @base.remotable
    def delete_host(self, host):
        """Take ``host`` out, in placement too; return the provider uuids
        changed. Raises AggregateHostNotFound (404). Runs in the conductor
        (``conductor.tasks.aggregate_hosts``)."""
        from nova_lite.conductor.tasks import aggregate_hosts
        return aggregate_hosts.delete_host(self._context, self, host)

    @staticmethod
    @db_api.writer
    def _destroy_in_db(context, aggregate_id):
        session = context.session
        row = _get_row(session, id=aggregate_id)
        if row.hosts:
            raise exception.InvalidAggregateActionDelete(
                aggregate_id=aggregate_id, reason='Host aggregate is not '
                                                  'empty')
        session.delete(row)
        scheduler_changes.note(session, aggregates=[row.uuid])

    @base.remotable
    def destroy(self):
        """Delete an empty aggregate; InvalidAggregateActionDelete (400)
        while it has hosts."""
        self._destroy_in_db(self._context, self.id)


@base.NovaLiteObjectRegistry.register
class AggregateList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version, Aggregate <= 1.0
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('Aggregate'),
    }

    @staticmethod
    @db_api.reader
    def _get_from_db(context, host=None, uuids=None, key=None):
        model = models.Aggregate
        query = sa.select(model).order_by(model.id)
        if host is not None:
            query = query.where(model.id.in_(
                sa.select(models.AggregateHost.aggregate_id).where(
                    models.AggregateHost.host == host)))
        if uuids is not None:
            query = query.where(model.uuid.in_(sorted(uuids)))
        if key is not None:
            query = query.where(model.id.in_(
                sa.select(models.AggregateMetadata.aggregate_id).where(
                    models.AggregateMetadata.key == key)))
        return context.session.scalars(query).all()

    @classmethod
    def _from_rows(cls, context, rows):
        return cls(context, objects=[
            Aggregate._from_db_object(context, Aggregate(), row)
            for row in rows])

    @classmethod
    @base.remotable
    def get_all(cls, context):
        return cls._from_rows(context, cls._get_from_db(context))

    @classmethod
    @base.remotable
    def get_by_host(cls, context, host, key=None):
        """The aggregates ``host`` is in (those with metadata ``key``,
        when given)."""
        return cls._from_rows(context, cls._get_from_db(context, host=host,
                                                        key=key))

    @classmethod
    @base.remotable
    def get_by_uuids(cls, context, uuids):
        """The aggregates among ``uuids`` (unknown uuids are skipped)."""
        return cls._from_rows(context, cls._get_from_db(
            context, uuids=list(uuids)))

    @classmethod
    @base.remotable
    def get_by_metadata_key(cls, context, key, hosts=None):
        """The aggregates with metadata ``key``; with ``hosts``, only those
        containing one of them."""
        result = cls._get_from_db(context, key=key)
        if hosts is not None:
            wanted = set(hosts)
            result = [row for row in result
                      if wanted.intersection(h.host for h in row.hosts)]
        return cls._from_rows(context, result)
