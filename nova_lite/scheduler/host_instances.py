"""Bulk read of the live instances on compute nodes, for the host manager.

An instance is on a node when it holds allocations on the node's
provider: that is true from the moment a scheduler claims it, before its
compute writes ``host``, so a second request never misses a member of its
server group that is still building. Four statements for any number of
nodes: the instances, their groups, their images' properties, and the
flavors are parsed once per distinct flavor.
"""

from oslo_serialization import jsonutils
import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import objects
from nova_lite.scheduler import host_state


def _instance_rows(session, node_uuids):
    inst = models.Instance
    rp = models.ResourceProvider
    held = (sa.select(models.Allocation.consumer_id,
                      models.Allocation.resource_provider_id)
            .distinct().subquery())
    query = (sa.select(rp.uuid, inst.uuid, inst.project_id, inst.vm_state,
                       inst.task_state, inst.flavor, inst.image_ref)
             .join(held, held.c.consumer_id == inst.uuid)
             .join(rp, rp.id == held.c.resource_provider_id)
             .where(inst.deleted == 0)
             .order_by(inst.id))
    if node_uuids is not None:
        query = query.where(rp.uuid.in_(sorted(node_uuids)))
    return session.execute(query).all()


def _groups(session, instance_uuids):
    member = models.InstanceGroupMember
    result = {}
    for chunk in _chunks(instance_uuids):
        rows = session.execute(
            sa.select(member.instance_uuid, models.InstanceGroup.uuid)
            .join(models.InstanceGroup,
                  models.InstanceGroup.id == member.group_id)
            .where(member.instance_uuid.in_(chunk))).all()
        for instance_uuid, group_uuid in rows:
            result.setdefault(instance_uuid, set()).add(group_uuid)
    return result


def _image_properties(session, image_ids):
    prop = models.ImageProperty
    raw = {}
    for chunk in _chunks(image_ids):
        for image_id, name, value in session.execute(
                sa.select(prop.image_id, prop.name, prop.value)
                .where(prop.image_id.in_(chunk))):
            raw.setdefault(image_id, {})[name] = value
    # Parsed as a request's image is, so a weigher compares like with like.
    return {image_id: objects.ImageMetaProps.from_dict(props).to_dict()
            for image_id, props in raw.items()}


def _chunks(values, size=500):
    values = sorted(values)
    for start in range(0, len(values), size):
        yield values[start:start + size]


class _FlavorCache(dict):
    def __missing__(self, text):
        try:
            flavor = objects.Flavor.obj_from_primitive(jsonutils.loads(text))
        except Exception:
            flavor = None
        self[text] = flavor
        return flavor


@db_api.reader
def get_host_instances(context, node_uuids=None):
    """{node uuid: [HostInstance]} for ``node_uuids`` (None: every node);
    nodes without instances are left out."""
    session = context.session
    if node_uuids is not None and not node_uuids:
        return {}
    rows = _instance_rows(session, node_uuids)
    groups = _groups(session, {row[1] for row in rows})
    images = _image_properties(session,
                               {row.image_ref for row in rows
                                if row.image_ref})
    flavors = _FlavorCache()
    result = {}
    for (node_uuid, uuid, project_id, vm_state, task_state, flavor,
         image_ref) in rows:
        result.setdefault(node_uuid, []).append(host_state.HostInstance(
            uuid=uuid, project_id=project_id, vm_state=vm_state,
            task_state=task_state, flavor=flavors[flavor],
            image_properties=images.get(image_ref, {}),
            group_uuids=frozenset(groups.get(uuid, ()))))
    return result
