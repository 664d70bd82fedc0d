"""Server groups: their quotas (server_groups, server_group_members).

Runs in the conductor. Callers reach it through the remotable
``InstanceGroup.create``, ``destroy`` and ``add_members`` (the API's
os-server-groups handlers, provisioning), which object_action brings
here; the object only reads and writes its rows.

Creating a group is two steps: reserve one server_groups (OverQuota when
none is left), then write the row, its members and the commit of the
reservation in one transaction. If that transaction fails the
reservation is rolled back (one a conductor did not live to roll back
expires). Deleting gives the quota back in the transaction that deletes
the row. Adding members counts the live ones with the group row locked,
so two requests joining at once count each other.
"""

from oslo_utils import excutils

from nova_lite.db import api as db_api
from nova_lite.objects import instance_group as group_obj
from nova_lite.quota import limits as quota_limits
from nova_lite.quota import reservations as quota_reservations

_GROUP = group_obj.InstanceGroup


@db_api.writer
def _create_in_db(context, values, members, reservation):
    row = _GROUP._insert_in_session(context.session, values, members)
    quota_reservations.commit_in_session(context.session, reservation)
    return row


def create(context, group):
    """Create ``group`` (filled from the new row), charging one
    server_groups of its project and user. Raises OverQuota (403) and
    writes nothing when over quota."""
    values, members = group._create_values()
    reservation = quota_reservations.reserve(
        context, group.project_id, group.user_id, {'server_groups': 1},
        quota_class=context.quota_class)
    try:
        row = _create_in_db(context, values, members, reservation)
    except Exception:
        with excutils.save_and_reraise_exception():
            quota_reservations.rollback(context, reservation.uuid)
    _GROUP._from_db_object(context, group, row, members)
    return group


@db_api.writer
def destroy(context, group_uuid):
    """Delete the group and give its server_groups quota back, together.
    Raises InstanceGroupNotFound."""
    session = context.session
    row = _GROUP._delete_in_session(session, group_uuid)
    quota_reservations.release_in_session(
        session, row.project_id, row.user_id, {'server_groups': 1})


@db_api.writer
def add_members(context, group_uuid, instance_uuids):
    """Make the instances members of the group, in the caller's
    transaction when there is one; return the uuids newly added. Raises
    OverQuota past the server_group_members quota (of the caller's
    project and user, else the group's)."""
    session = context.session
    row, live = _GROUP._live_members_for_update(session, group_uuid)
    adding = len(set(instance_uuids) - set(live))
    if adding:
        quota_limits.check_countable(
            context, context.project_id or row.project_id,
            context.user_id or row.user_id, 'server_group_members',
            len(live), adding, quota_class=context.quota_class)
    return _GROUP._add_members_in_session(session, row.id, instance_uuids)
