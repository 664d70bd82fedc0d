"""Fake objects and collaborators for the handler tests."""

import datetime

from nova_lite import exception
from nova_lite import objects

CREATED = datetime.datetime(2024, 1, 31, 12, 0, 0)
UPDATED = datetime.datetime(2024, 1, 31, 12, 5, 0)


def flavor(flavorid='1', name='m1.tiny', memory_mb=512, vcpus=1, root_gb=1,
           **kwargs):
    values = dict(id=int(flavorid) if flavorid.isdigit() else 7,
                  flavorid=flavorid, name=name, memory_mb=memory_mb,
                  vcpus=vcpus, root_gb=root_gb, ephemeral_gb=0, swap=0,
                  rxtx_factor=1.0, disabled=False, is_public=True,
                  description=None, extra_specs={}, created_at=CREATED,
                  updated_at=None)
    values.update(kwargs)
    return objects.Flavor(**values)


def image(image_id='70a599e0-31e7-49b7-b260-868f441e862b', **kwargs):
    values = {
        'id': image_id, 'name': 'cirros', 'status': 'active',
        'disk_format': 'qcow2', 'container_format': 'bare',
        'size': 13167616, 'min_disk': 0, 'min_ram': 0, 'owner': 'proj1',
        'visibility': 'public', 'properties': {'os_distro': 'cirros'},
        'created_at': CREATED, 'updated_at': None,
    }
    values.update(kwargs)
    return values


def instance(uuid='c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30', **kwargs):
    values = dict(
        id=1, uuid=uuid, project_id='proj1', user_id='demo',
        display_name='vm1', hostname='vm1',
        image_ref='70a599e0-31e7-49b7-b260-868f441e862b',
        flavor=flavor(), vcpus=1, memory_mb=512, root_gb=1,
        ephemeral_gb=0, host=None, node=None, compute_node_uuid=None,
        vm_state='building', task_state='scheduling', power_state=0,
        availability_zone=None, key_name=None, reservation_id='r-abc',
        launch_index=0, launched_at=None, terminated_at=None, metadata={},
        created_at=CREATED, updated_at=UPDATED, deleted_at=None,
        deleted=False, locked=False, locked_by=None, locked_reason=None,
        description=None)
    values.update(kwargs)
    return objects.Instance(**values)


class FakeComputeAPI:
    """Records calls; answers from ``instances`` (uuid -> Instance)."""

    def __init__(self, instances=()):
        self.instances = {i.uuid: i for i in instances}
        self.created = []
        self.deleted = []
        self.get_all_calls = []

    def create(self, context, flavor, image_meta, name, **kwargs):
        self.created.append(dict(kwargs, flavor=flavor, image=image_meta,
                                 name=name))
        count = kwargs.get('max_count', 1)
        created = [instance(uuid='00000000-0000-0000-0000-%012d' % n,
                            display_name=name) for n in range(count)]
        return objects.InstanceList(objects=created), 'r-12345678'

    def get(self, context, instance_id, expected_attrs=None):
        inst = self.instances.get(instance_id)
        if inst is None or (not context.is_admin and
                            inst.project_id != context.project_id):
            raise exception.InstanceNotFound(instance_id=instance_id)
        return inst

    def get_all(self, context, filters=None, **kwargs):
        self.get_all_calls.append(dict(kwargs, filters=filters))
        result = list(self.instances.values())
        if not kwargs.get('all_tenants'):
            result = [i for i in result
                      if i.project_id == context.project_id]
        limit = kwargs.get('limit')
        return result[:limit] if limit else result

    def delete(self, context, instance):
        self.deleted.append(instance.uuid)

    def update(self, context, instance, values):
        if 'name' in values:
            instance.display_name = values['name']
        if 'description' in values:
            instance.description = values['description']
        return instance
