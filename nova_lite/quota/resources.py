"""The resources quotas limit, and how their real usage is counted.

Three kinds, as in Nova:

* reservable (``instances``, ``cores``, ``ram``, ``server_groups``): usage
  is recorded per project and user in ``quota_usages`` and changes only
  through reservations (boot) and releases (delete);
* absolute (``metadata_items``): a limit on one request, nothing to count;
* countable (``key_pairs``, ``server_group_members``): counted when it is
  checked (a user's key pairs, the members of one server group), no
  record.

A sync function counts the real usage of a project from the rows that
make it up; a refresh writes its counts over the recorded ones. One sync
function may count several resources (the instance rows give instances,
cores and ram at once): ``SYNC_GROUPS`` says which go together.
"""

import collections

from oslo_serialization import jsonutils
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite.db import models

# The flavor extra spec of a server's video RAM; it counts against ``ram``
# on top of the flavor's memory_mb (seed 004, Nova's VIDEO_RAM).
VIDEO_RAM = 'hw_video:ram_max_mb'

RESERVABLE = ('cores', 'instances', 'ram', 'server_groups')
ABSOLUTE = ('metadata_items',)
COUNTABLE = ('key_pairs', 'server_group_members')
ALL = tuple(sorted(RESERVABLE + ABSOLUTE + COUNTABLE))

INSTANCE_RESOURCES = ('cores', 'instances', 'ram')


def video_ram_mb(extra_specs):
    """The video RAM of a flavor's extra specs, in MB (0 if unset or not
    a non-negative integer: the boot and the count must agree, so a bad
    value counts as nothing on both sides)."""
    try:
        value = int((extra_specs or {}).get(VIDEO_RAM, 0))
    except (TypeError, ValueError):
        return 0
    return max(value, 0)


def instance_deltas(vcpus, memory_mb, extra_specs):
    """{resource: amount} one server of that size uses (``extra_specs``:
    its flavor's, for the video RAM)."""
    return {'instances': 1, 'cores': vcpus,
            'ram': memory_mb + video_ram_mb(extra_specs)}


def instance_row_deltas(row):
    """{resource: amount} a server record (models.Instance) accounts for:
    what its flavor copy reserved when it was booted."""
    return {'instances': 1, 'cores': row.vcpus,
            'ram': row.memory_mb + _flavor_video_ram(row.flavor)}


def default_limit(resource):
    """The configured limit of ``resource`` ([quota] <resource>)."""
    return getattr(CONF.quota, resource)


def _flavor_video_ram(flavor_json):
    try:
        data = jsonutils.loads(flavor_json)['nova_lite_object.data']
    except (KeyError, TypeError, ValueError):
        return 0
    return video_ram_mb(data.get('extra_specs'))


def _sync_instances(session, project_id):
    """{user_id: {instances, cores, ram}} of the project's live servers."""
    model = models.Instance
    live = sa.and_(model.project_id == project_id, model.deleted == 0,
                   model.quota_released.is_(False))
    counts = collections.defaultdict(dict)
    for user_id, number, cores, ram in session.execute(
            sa.select(model.user_id, sa.func.count(model.id),
                      sa.func.sum(model.vcpus),
                      sa.func.sum(model.memory_mb))
            .where(live).group_by(model.user_id)):
        counts[user_id] = {'instances': number, 'cores': int(cores or 0),
                           'ram': int(ram or 0)}
    # Video RAM sits in the flavor copy (JSON): read only the servers
    # whose flavor mentions it.
    for user_id, flavor in session.execute(
            sa.select(model.user_id, model.flavor).where(
                live, model.flavor.contains(VIDEO_RAM, autoescape=True))):
        counts[user_id]['ram'] += _flavor_video_ram(flavor)
    return counts


def _sync_server_groups(session, project_id):
    """{user_id: {server_groups}}; nothing until the server group table
    exists (migration 0003)."""
    model = getattr(models, 'InstanceGroup', None)
    if model is None:
        return {}
    query = sa.select(model.user_id, sa.func.count(model.id)).where(
        model.project_id == project_id)
    if hasattr(model, 'deleted'):
        query = query.where(model.deleted == 0)
    return {user_id: {'server_groups': number}
            for user_id, number in session.execute(
                query.group_by(model.user_id))}


# sync function -> the resources it counts, and resource -> its function.
SYNC_GROUPS = {
    _sync_instances: INSTANCE_RESOURCES,
    _sync_server_groups: ('server_groups',),
}
SYNC = {resource: function for function, group in SYNC_GROUPS.items()
        for resource in group}


def sync_group(resources):
    """Every resource counted together with one of ``resources``."""
    return tuple(sorted({other for resource in resources
                         for other in SYNC_GROUPS[SYNC[resource]]}))


def count_usage(session, project_id, resources):
    """{user_id: {resource: counted}} for ``resources`` of a project."""
    counts = collections.defaultdict(dict)
    for function in {SYNC[resource] for resource in resources}:
        for user_id, values in function(session, project_id).items():
            counts[user_id].update(
                {r: v for r, v in values.items() if r in resources})
    return counts
