"""InstanceGroup and InstanceGroupList: server groups.

A server group has one policy over where its members run: ``affinity``
(one host), ``anti-affinity`` (different hosts; ``rules``
``max_server_per_host`` relaxes it), and the ``soft-`` variants the
weighers prefer but do not enforce. Instances join a group when they are
provisioned with the scheduler hint ``group``.

``members`` are the group's live instances (a deleted instance's row is
skipped on read). ``hosts`` is not stored: the conductor fills it before
scheduling (``get_hosts``), and the scheduler adds the hosts it picks for
the instances of one request.
"""

from oslo_serialization import jsonutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite.db import queries
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import fields

POLICIES = ('affinity', 'anti-affinity', 'soft-affinity',
            'soft-anti-affinity')


def _live_members(session, group_ids):
    """{group id: [instance uuid, ...]} of live instances, in join order."""
    if not group_ids:
        return {}
    member = models.InstanceGroupMember
    rows = session.execute(
        sa.select(member.group_id, member.instance_uuid)
        .join(models.Instance, sa.and_(
            models.Instance.uuid == member.instance_uuid,
            models.Instance.deleted == 0))
        .where(member.group_id.in_(sorted(group_ids)))
        .order_by(member.id)).all()
    result = {group_id: [] for group_id in group_ids}
    for group_id, uuid in rows:
        result[group_id].append(uuid)
    return result


def _hosts_of(session, instance_uuids):
    """Hosts running (or holding allocations for) these instances.

    An instance scheduled a moment ago has allocations before its compute
    writes its host, so both count: the second of two concurrent requests
    in an anti-affinity group then sees the host of the first.
    """
    if not instance_uuids:
        return []
    uuids = sorted(instance_uuids)
    inst = models.Instance
    hosts = set(session.scalars(sa.select(inst.host).where(
        inst.uuid.in_(uuids), inst.deleted == 0,
        inst.host.is_not(None))).all())
    node = models.ComputeNode
    rp = models.ResourceProvider
    alloc = models.Allocation
    hosts.update(session.scalars(
        sa.select(node.host).distinct()
        .join(rp, rp.uuid == node.uuid)
        .join(alloc, alloc.resource_provider_id == rp.id)
        .where(alloc.consumer_id.in_(uuids))).all())
    return sorted(hosts)


@base.NovaLiteObjectRegistry.register
class InstanceGroup(base.NovaLiteObject, base.NovaLiteTimestampObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'user_id': fields.StringField(),
        'project_id': fields.StringField(),
        'policy': fields.StringField(),
        'rules': fields.DictOfIntegersField(default={}),
        'members': fields.ListOfStringsField(default=[]),
        'hosts': fields.ListOfStringsField(nullable=True),
    }
    fields.update(base.NovaLiteTimestampObject.fields)

    @staticmethod
    def _from_db_object(context, group, row, members):
        base.set_all_from_db(group, row, skip=('rules', 'members', 'hosts'))
        group.rules = jsonutils.loads(row.rules) if row.rules else {}
        group.members = list(members)
        group._context = context
        group.obj_reset_changes()
        return group

    @classmethod
    def _from_rows(cls, context, session, rows):
        members = _live_members(session, [row.id for row in rows])
        return [cls._from_db_object(context, cls(), row, members[row.id])
                for row in rows]

    @staticmethod
    @db_api.reader
    def _load(context, **filters):
        row = queries.first_or_raise(
            context.session, models.InstanceGroup,
            lambda f: exception.InstanceGroupNotFound(
                group_uuid=queries.describe(f)), **filters)
        return row, _live_members(context.session, [row.id])[row.id]

    @classmethod
    @base.remotable
    def get_by_uuid(cls, context, uuid):
        row, members = cls._load(context, uuid=uuid)
        return cls._from_db_object(context, cls(), row, members)

    @classmethod
    @base.remotable
    def get_by_name(cls, context, name, project_id):
        """The group called ``name`` in ``project_id`` (the first, if the
        project has several of that name)."""
        row, members = cls._load(context, name=name, project_id=project_id)
        return cls._from_db_object(context, cls(), row, members)

    @staticmethod
    @db_api.reader
    def _group_uuid_of(context, instance_uuid):
        member = models.InstanceGroupMember
        return context.session.scalar(
            sa.select(models.InstanceGroup.uuid)
            .join(member, member.group_id == models.InstanceGroup.id)
            .where(member.instance_uuid == instance_uuid)
            .order_by(member.id).limit(1))

    @classmethod
    @base.remotable
    def get_by_instance_uuid(cls, context, instance_uuid):
        """The group of an instance; InstanceGroupNotFound if none."""
        uuid = cls._group_uuid_of(context, instance_uuid)
        if uuid is None:
            raise exception.InstanceGroupNotFound(group_uuid=instance_uuid)
        return cls.get_by_uuid(context, uuid)

    def _create_values(self):
        """(row values, member uuids) of a new group; raises
        ObjectActionError if it exists already or its policy is unknown."""
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        if self.policy not in POLICIES:
            raise exception.ObjectActionError(
                action='create', reason='unknown policy %s' % self.policy)
        values = self.obj_get_changes()
        members = values.pop('members', None) or []
        values.pop('hosts', None)
        values['rules'] = jsonutils.dumps(values.pop('rules', None) or {})
        values.setdefault('uuid', uuidutils.generate_uuid())
        return values, members

    @staticmethod
    def _insert_in_session(session, values, members):
        """Write the group row and its members; return the row."""
        row = models.InstanceGroup(**values)
        session.add(row)
        session.flush()
        _add_members(session, row.id, members)
        return row

    @base.remotable
    def create(self):
        """Create the group, charging the server_groups quota (OverQuota
        when none is left). The remotable entry the API calls; it runs in
        the conductor, where ``conductor.tasks.server_group`` decides."""
        from nova_lite.conductor.tasks import server_group
        server_group.create(self._context, self)

    @staticmethod
    def _delete_in_session(session, uuid):
        """Delete the group row and its members; return the row."""
        row = queries.first_or_raise(
            session, models.InstanceGroup,
            lambda f: exception.InstanceGroupNotFound(group_uuid=uuid),
            uuid=uuid)
        session.execute(sa.delete(models.InstanceGroupMember).where(
            models.InstanceGroupMember.group_id == row.id))
        session.delete(row)
        return row

    @base.remotable
    def destroy(self):
        """Delete the group; its instances keep running, groupless. Its
        server_groups quota is given back
        (``conductor.tasks.server_group``)."""
        from nova_lite.conductor.tasks import server_group
        server_group.destroy(self._context, self.uuid)

    @staticmethod
    def _live_members_for_update(session, group_uuid):
        """(group row, live member uuids), the row locked so two requests
        joining at once count each other; InstanceGroupNotFound."""
        row = session.scalars(sa.select(models.InstanceGroup).filter_by(
            uuid=group_uuid).with_for_update()).first()
        if row is None:
            raise exception.InstanceGroupNotFound(group_uuid=group_uuid)
        return row, _live_members(session, [row.id])[row.id]

    @staticmethod
    def _add_members_in_session(session, group_id, instance_uuids):
        return _add_members(session, group_id, instance_uuids)

    @classmethod
    @base.remotable
    def add_members(cls, context, group_uuid, instance_uuids):
        """Make the instances members (inside the caller's transaction,
        when there is one); return the uuids newly added. Raises OverQuota
        past the server_group_members quota (the check is
        ``conductor.tasks.server_group.add_members``)."""
        from nova_lite.conductor.tasks import server_group
        return server_group.add_members(context, group_uuid, instance_uuids)

    @staticmethod
    @db_api.reader
    def _get_hosts_from_db(context, instance_uuids):
        return _hosts_of(context.session, instance_uuids)

    @base.remotable
    def get_hosts(self, exclude=None):
        """Hosts of the live members (except those in ``exclude``),
        sorted; see ``_hosts_of`` for what counts."""
        uuids = set(self.members) - set(exclude or ())
        return self._get_hosts_from_db(self._context, sorted(uuids))

    def load_for_scheduling(self):
        """Refresh ``members`` and fill ``hosts`` from the database, as
        the scheduler's server group filters and weighers read them."""
        fresh = self.get_by_uuid(self._context, self.uuid)
        self.members = fresh.members
        self.hosts = fresh.get_hosts()
        self.obj_reset_changes(['members', 'hosts'])


def _add_members(session, group_id, instance_uuids):
    member = models.InstanceGroupMember
    present = set(session.scalars(sa.select(member.instance_uuid).where(
        member.group_id == group_id)).all())
    added = []
    for uuid in instance_uuids:
        if uuid not in present:
            session.add(member(group_id=group_id, instance_uuid=uuid))
            present.add(uuid)
            added.append(uuid)
    session.flush()
    return added


@base.NovaLiteObjectRegistry.register
class InstanceGroupList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version, InstanceGroup <= 1.0
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('InstanceGroup'),
    }

    @staticmethod
    @db_api.reader
    def _get_from_db(context, project_id=None):
        model = models.InstanceGroup
        query = sa.select(model).order_by(model.id)
        if project_id is not None:
            query = query.where(model.project_id == project_id)
        rows = context.session.scalars(query).all()
        return InstanceGroup._from_rows(context, context.session, rows)

    @classmethod
    @base.remotable
    def get_all(cls, context):
        return cls(context, objects=cls._get_from_db(context))

    @classmethod
    @base.remotable
    def get_by_project_id(cls, context, project_id):
        return cls(context, objects=cls._get_from_db(context, project_id))
